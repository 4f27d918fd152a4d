import type { ModuleRef } from '@nestjs/core';
import type { AppConfig } from '../../config/app-config';
import type { Model } from 'mongoose';
import { Types } from 'mongoose';
import type { RealtimePublisher } from '../realtime/realtime.publisher';
import type { Job } from './job.schema';
import { POSITIONS_EVERY_MS, QueuePositions } from './queue-positions';

describe('QueuePositions.announce', () => {
  const owner = new Types.ObjectId();
  const waiting = [new Types.ObjectId(), new Types.ObjectId()];
  let reads: number;
  let pushes: { positions: { jobId: string; position: number; etaSeconds?: number }[] }[];
  let positions: QueuePositions;

  beforeEach(() => {
    jest.useFakeTimers();
    reads = 0;
    pushes = [];
    // The queue's line as its script answers (next in line first, with their Bull data; nothing
    // running; no duration measured yet) and the job records.
    const data = (jobId: Types.ObjectId) =>
      JSON.stringify({ jobId: String(jobId), work: 1, bucket: 'clone' });
    const queue = {
      client: { eval: async () => [2, waiting.flatMap((id) => [String(id), data(id)]), [], [], [[]]] },
      toKey: (name: string) => name,
    };
    const jobs = {
      find: () => ({
        lean: async () => {
          reads += 1;
          return waiting.map((_id) => ({ _id, owner }));
        },
      }),
    };
    const realtime = { toUser: (_user: string, _event: string, payload: never) => pushes.push(payload) };
    positions = new QueuePositions(
      jobs as unknown as Model<Job>,
      realtime as unknown as RealtimePublisher,
      { get: () => queue } as unknown as ModuleRef,
      { JOB_CONCURRENCY_CLONE: 1 } as AppConfig,
    );
  });
  afterEach(() => jest.useRealTimers());

  it('tells the places at once, then once more for all the starts within its window', async () => {
    positions.announce('clone');
    await jest.advanceTimersByTimeAsync(0);
    expect(reads).toBe(1);
    // Estimated times from the clone default (0.5 s per unit, whole seconds): the second waits
    // for the first.
    expect(pushes.at(-1)?.positions).toEqual([
      { jobId: String(waiting[0]), position: 1, etaSeconds: 1 },
      { jobId: String(waiting[1]), position: 2, etaSeconds: 1 },
    ]);

    // A backlog: twenty more jobs start within the window; the list is read once more, at its end.
    for (let i = 0; i < 20; i++) positions.announce('clone');
    await jest.advanceTimersByTimeAsync(POSITIONS_EVERY_MS - 1);
    expect(reads).toBe(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(reads).toBe(2);
    expect(pushes).toHaveLength(2);

    // A quiet window after that: nothing more.
    await jest.advanceTimersByTimeAsync(POSITIONS_EVERY_MS * 3);
    expect(reads).toBe(2);
  });
});
