import type { ModuleRef } from '@nestjs/core';
import type { Model } from 'mongoose';
import { Types } from 'mongoose';
import type { RealtimePublisher } from '../realtime/realtime.publisher';
import type { Job } from './job.schema';
import { POSITIONS_EVERY_MS, QueuePositions } from './queue-positions';

describe('QueuePositions.announce', () => {
  const owner = new Types.ObjectId();
  const waiting = [new Types.ObjectId(), new Types.ObjectId()];
  let reads: number;
  let pushes: { positions: { jobId: string; position: number }[] }[];
  let positions: QueuePositions;

  beforeEach(() => {
    jest.useFakeTimers();
    reads = 0;
    pushes = [];
    // The queue's waiting list (Bull keeps the next in line at the right end) and the job records.
    const queue = {
      client: { lrange: async () => waiting.map(String).reverse() },
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
    );
  });
  afterEach(() => jest.useRealTimers());

  it('tells the places at once, then once more for all the starts within its window', async () => {
    positions.announce('clone');
    await jest.advanceTimersByTimeAsync(0);
    expect(reads).toBe(1);
    expect(pushes.at(-1)?.positions).toEqual([
      { jobId: String(waiting[0]), position: 1 },
      { jobId: String(waiting[1]), position: 2 },
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
