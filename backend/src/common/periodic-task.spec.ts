import { PeriodicTask } from './periodic-task';

describe('PeriodicTask', () => {
  it('runs once at once with `now`, and stop() waits for the run in flight', async () => {
    let finish!: () => void;
    const runs: string[] = [];
    const task = new PeriodicTask(async () => {
      runs.push('started');
      await new Promise<void>((resolve) => (finish = resolve));
      runs.push('ended');
    });
    task.start(60_000, { now: true });
    const stopped = task.stop().then(() => runs.push('stopped'));
    expect(runs).toEqual(['started']);
    finish();
    await stopped;
    expect(runs).toEqual(['started', 'ended', 'stopped']);
    await task.tick();
    expect(runs).toHaveLength(3); // a stopped task does not run
  });

  it('runs again when started again after a stop (a module shut down and bootstrapped again)', async () => {
    let count = 0;
    const task = new PeriodicTask(async () => void count++);
    task.start(60_000, { now: true });
    await task.stop();
    expect(count).toBe(1);
    task.start(60_000, { now: true });
    await task.tick();
    expect(count).toBe(2);
    await task.stop();
  });
});
