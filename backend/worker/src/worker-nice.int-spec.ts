import { readdirSync, readFileSync } from 'node:fs';
import { processHost, type ProcessHost } from '../../test/process-host';
import { startWorker } from '../../test/processes';

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
  let host: ProcessHost;
  beforeAll(() => {
    host = processHost();
  });
  afterAll(() => host.close());

  it('boots at the priority it was started with, then every thread of it takes WORKER_NICE', async () => {
    const worker = startWorker(
      host,
      { LOG_LEVEL: 'info', LOG_PRETTY: 'false', WORKER_NICE: '7' },
      { capture: true },
    );
    host.children.push(worker);
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
