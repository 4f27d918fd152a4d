import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mongoose';
import { exited, startWorker } from '../../test/processes';
import { loadConfig, type AppConfig } from '../../src/config/app-config';

/** The nice value of a thread (Linux: field 19 of /proc/<pid>/task/<tid>/stat). */
function niceOf(pid: number, tid = pid): number {
  const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
  // the fields after the command name, which is in parentheses and may hold spaces
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

/**
 * Issue 53 point 4: the worker boots at the priority it was started with (npm start used to start
 * it at nice 10, which beside busy programs made its boot alone take over 30 s) and takes
 * WORKER_NICE once it has booted, so that the API still wins the CPU when both want it.
 */
describe('the worker process priority', () => {
  let host: { config: AppConfig };
  let child: ChildProcess | undefined;

  beforeAll(() => {
    const mongo = process.env.TEST_MONGODB_URL;
    const redis = process.env.TEST_REDIS_URL;
    if (!mongo || !redis)
      throw new Error('TEST_MONGODB_URL and TEST_REDIS_URL are not set: run the tests with `npm test`');
    const id = randomBytes(4).toString('hex');
    host = {
      config: loadConfig({
        NODE_ENV: 'test',
        MONGODB_URI: `${mongo}/t_${id}`,
        REDIS_URL: redis,
        REDIS_PREFIX: `t_${id}`,
        STORAGE_DIR: mkdtempSync(join(tmpdir(), 'studio-storage-')),
        ENGINE_POOL_NICE: '0',
      }),
    };
  });
  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const gone = exited(child);
      child.kill('SIGKILL');
      await gone;
    }
    const conn = await createConnection(host.config.MONGODB_URI).asPromise();
    await conn.dropDatabase().catch(() => undefined);
    await conn.close();
    rmSync(host.config.STORAGE_DIR, { recursive: true, force: true });
  });

  it('boots at the priority it was started with, then every thread of it takes WORKER_NICE', async () => {
    const worker = startWorker(
      host,
      { LOG_LEVEL: 'info', LOG_PRETTY: 'false', WORKER_NICE: '7' },
      { capture: true },
    );
    child = worker;
    let stdout = '';
    worker.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    worker.stderr!.resume();
    // still booting: at the priority it was started with
    expect(niceOf(worker.pid!)).toBe(0);
    const deadline = Date.now() + 120_000;
    while (!stdout.includes('worker started')) {
      if (worker.exitCode !== null) throw new Error(`the worker exited with ${worker.exitCode}`);
      if (Date.now() > deadline) throw new Error('the worker did not start');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // the line after 'worker started' is written once the nice is taken
    while (!stdout.includes('worker main thread now at nice 7')) {
      if (worker.exitCode !== null) throw new Error(`the worker exited with ${worker.exitCode}`);
      if (Date.now() > deadline) throw new Error('the worker did not take its nice');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // every thread: the main one, the garbage collector's and libuv's pool (sharp, zlib) alike
    const threads = readdirSync(`/proc/${worker.pid}/task`);
    expect(threads.length).toBeGreaterThan(1);
    expect(threads.map((tid) => niceOf(worker.pid!, Number(tid))).filter((nice) => nice < 7)).toEqual([]);
  });
});
