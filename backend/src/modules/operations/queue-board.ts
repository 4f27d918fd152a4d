import { createBullBoard } from '@bull-board/api';
import { BullAdapter } from '@bull-board/api/bullAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { getQueueToken } from '@nestjs/bull';
import type { INestApplication } from '@nestjs/common';
import type { Queue } from 'bull';
import type { NextFunction, Request, Response } from 'express';
import { JobTools, Messages, QUEUE_BOARD_PATH } from '@studio/contracts';
import { failure } from '../../common/api-response';
import { AccountsRepository } from '../accounts';
import { DOMAIN_EVENTS_QUEUE } from '../events';
import { toolQueueToken } from '../engines';

/**
 * The queue board (bull-board): waiting, active, completed and failed jobs of every queue, with
 * retry, behind the admin session. Express middleware rather than a Nest controller because
 * bull-board brings its own router and UI.
 */
export function mountQueueBoard(app: INestApplication): void {
  const queues = [
    ...JobTools.map((tool) => app.get<Queue>(toolQueueToken(tool), { strict: false })),
    app.get<Queue>(getQueueToken(DOMAIN_EVENTS_QUEUE), { strict: false }),
  ];
  const board = new ExpressAdapter();
  board.setBasePath(QUEUE_BOARD_PATH);
  createBullBoard({ queues: queues.map((queue) => new BullAdapter(queue)), serverAdapter: board });
  const accounts = app.get(AccountsRepository);

  const adminsOnly = async (req: Request, res: Response, next: NextFunction) => {
    const userId = req.session?.userId;
    if (!userId) return void res.status(401).json(failure(Messages.needLogin));
    const account = await accounts.findById(userId).catch(() => null);
    if (account?.role !== 'admin') return void res.status(403).json(failure(Messages.forbidden));
    // bull-board's page boots with an inline script.
    res.setHeader(
      'Content-Security-Policy',
      "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:",
    );
    next();
  };
  app.use(QUEUE_BOARD_PATH, adminsOnly, board.getRouter());
}
