import { INestApplicationContext, Logger } from '@nestjs/common';
import { IoAdapter } from '@nestjs/platform-socket.io';
import { createAdapter } from '@socket.io/redis-adapter';
import type { RequestHandler } from 'express';
import type { IncomingMessage } from 'node:http';
import { isAllowedOrigin } from '../../common/request-origin';
import type Redis from 'ioredis';
import type { Server, ServerOptions } from 'socket.io';
import { Messages } from '@studio/contracts';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { isOutage, reportFailedPublishes, subscriberOf } from '../../infrastructure/outage';
import { closeRedis, REDIS } from '../../infrastructure/redis.module';
import { LiveSessions, SESSION_MIDDLEWARE } from '../auth';
import { socketChannelKey } from './realtime.publisher';

/**
 * Socket.IO server on the Redis adapter (pushes reach users on every API instance), with the
 * handshake authenticated by the same session cookie as HTTP (no session, no connection) and
 * refused from other sites' pages (isAllowedOrigin).
 */
export class SessionIoAdapter extends IoAdapter {
  private readonly subscribers: Redis[] = [];

  constructor(private readonly app: INestApplicationContext) {
    super(app);
  }

  override createIOServer(port: number, options?: ServerOptions): Server {
    const config = this.app.get<AppConfig>(APP_CONFIG);
    const redis = this.app.get<Redis>(REDIS);
    const sessionMiddleware = this.app.get<RequestHandler>(SESSION_MIDDLEWARE);

    const server: Server = super.createIOServer(port, {
      ...options,
      cors: config.FRONTEND_ORIGIN ? { origin: config.FRONTEND_ORIGIN, credentials: true } : undefined,
      allowRequest: (request: IncomingMessage, callback: (err: string | null, ok: boolean) => void) =>
        callback(null, isAllowedOrigin(request, config)),
    });
    const pub = redis.duplicate();
    const sub = subscriberOf(redis);
    this.subscribers.push(pub, sub);
    // While Redis is down both reconnect on their own (and sub subscribes again); said once per
    // failed attempt in the log instead of the adapter's "missing 'error' handler" warning.
    const logger = new Logger('SessionIoAdapter');
    for (const client of [pub, sub])
      client.on('error', (err: Error) => logger.warn(`socket pushes: ${err.message}`));
    reportFailedPublishes(pub, (err) => logger.warn(`socket push lost: ${err.message}`));
    server.adapter(createAdapter(pub, sub, { key: socketChannelKey(config) }));

    server.engine.use(sessionMiddleware);
    const sessions = this.app.get(LiveSessions, { strict: false });
    server.use((socket, next) => {
      const session = (socket.request as { session?: Parameters<LiveSessions['accountOf']>[0] }).session;
      sessions.accountOf(session).then(
        (account) => next(account ? undefined : new Error(Messages.needLogin)),
        // a part down: the plain words, not the driver's (addresses, ports); the browser retries
        (err: Error) => next(isOutage(err) ? new Error(Messages.briefOutage) : err),
      );
    });
    return server;
  }

  override async close(server: Server): Promise<void> {
    await super.close(server);
    await Promise.all(this.subscribers.map(closeRedis));
  }
}
