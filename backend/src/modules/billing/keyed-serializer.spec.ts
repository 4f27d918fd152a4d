import { KeyedSerializer } from './keyed-serializer';

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('KeyedSerializer', () => {
  it('runs tasks of one key one at a time, in order', async () => {
    const serializer = new KeyedSerializer();
    const log: string[] = [];
    let running = 0;
    let maxRunning = 0;
    const task = (name: string, ms: number) => async () => {
      running += 1;
      maxRunning = Math.max(maxRunning, running);
      await tick(ms);
      log.push(name);
      running -= 1;
    };
    await Promise.all([
      serializer.run('a', task('1', 20)),
      serializer.run('a', task('2', 1)),
      serializer.run('a', task('3', 5)),
    ]);
    expect(log).toEqual(['1', '2', '3']);
    expect(maxRunning).toBe(1);
  });

  it('runs different keys in parallel and keeps going after a failure', async () => {
    const serializer = new KeyedSerializer();
    const started: string[] = [];
    const slow = serializer.run('a', async () => {
      started.push('a');
      await tick(30);
    });
    const other = serializer.run('b', async () => {
      started.push('b');
    });
    await other;
    expect(started).toEqual(['a', 'b']);
    await slow;
    await expect(serializer.run('c', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(serializer.run('c', async () => 42)).resolves.toBe(42);
  });
});
