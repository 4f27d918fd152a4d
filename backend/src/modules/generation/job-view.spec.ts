import { Types } from 'mongoose';
import type { JobRecord } from './job.schema';
import { toJobView } from './job-view';

const record = (fields: Partial<JobRecord>): JobRecord => ({
  _id: new Types.ObjectId(),
  owner: new Types.ObjectId(),
  username: 'alice',
  tool: 'inpaint',
  state: 'succeeded',
  progress: 100,
  cost: 1,
  folder: new Types.ObjectId(),
  inputs: ['a/1.png', 'a/2.png'],
  params: {},
  outputs: [],
  attempts: 1,
  settled: true,
  createdAt: new Date('2026-01-01T00:00:00Z'),
  ...fields,
});

describe('toJobView', () => {
  it('gives the settings "Run again" repeats, and no engine-only or batch parameters', () => {
    const view = toJobView(
      record({
        tool: 'generate',
        params: {
          prompt: 'adult woman, red hair',
          tags: { haircolor: 'ginger' },
          width: 1024,
          height: 1024,
          batchId: 'b',
          batchName: 'Freckles',
          durationSeconds: 3,
        },
      }),
    );
    expect(view.settings).toEqual({ prompt: 'adult woman, red hair', tags: { haircolor: 'ginger' } });
    expect(toJobView(record({ tool: 'superResolution', params: { scale: 4 } })).settings).toEqual({
      scale: 4,
    });
    expect(toJobView(record({ tool: 'clone', params: { amount: 3 } })).settings).toEqual({ amount: 3 });
  });

  it("names a job's batch with its size, and leaves the size out for batches made before it was kept", () => {
    const params = { batchId: 'b', batchName: 'Freckles' };
    expect(toJobView(record({ params: { ...params, batchSize: 12 } })).batch).toEqual({
      id: 'b',
      name: 'Freckles',
      size: 12,
    });
    expect(toJobView(record({ params })).batch).toEqual({ id: 'b', name: 'Freckles' });
    expect(toJobView(record({})).batch).toBeUndefined();
  });

  it('counts the inputs still stored', () => {
    expect(toJobView(record({})).inputCount).toBe(2);
    expect(toJobView(record({ inputs: [] })).inputCount).toBe(0);
  });

  it('says a job was cancelled by staff only when staff, not its owner, cancelled it', () => {
    const cancel = { userId: 'x', username: 'help', at: new Date() };
    expect(
      toJobView(record({ state: 'cancelled', cancel: { ...cancel, staff: true } })).cancelledByStaff,
    ).toBe(true);
    expect(
      toJobView(record({ state: 'cancelled', cancel: { ...cancel, staff: false } })).cancelledByStaff,
    ).toBeUndefined();
    // Marked, but a finish won the race: the job is not cancelled.
    expect(
      toJobView(record({ state: 'succeeded', cancel: { ...cancel, staff: true } })).cancelledByStaff,
    ).toBeUndefined();
  });
});
