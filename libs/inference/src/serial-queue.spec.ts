import { SerialQueue } from './serial-queue';

describe('SerialQueue', () => {
  it('runs tasks one at a time, in order, past failures', async () => {
    const queue = new SerialQueue();
    const events: string[] = [];
    const task =
      (name: string, ms: number, fail = false) =>
      async () => {
        events.push(`start ${name}`);
        await new Promise((resolve) => setTimeout(resolve, ms));
        events.push(`end ${name}`);
        if (fail) throw new Error(name);
        return name;
      };
    const results = await Promise.allSettled([
      queue.run(task('a', 20)),
      queue.run(task('b', 1, true)),
      queue.run(task('c', 5)),
    ]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([
      'a',
      'b',
      'c',
    ]);
    expect(results[1].status).toBe('rejected');
    expect(events).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
    expect(queue.size).toBe(0);
  });
});
