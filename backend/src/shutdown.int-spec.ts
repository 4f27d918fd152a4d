import type { ChildProcess } from 'node:child_process';
import { startPrivateRedis, type PrivateService } from '../test/private-services';
import { processHost, type ProcessHost } from '../test/process-host';
import { exited, startApi, startWorker } from '../test/processes';
import { SHUTDOWN_OVERDUE_STATUS } from './shutdown';

/**
 * Issue 53: Ctrl-C (SIGTERM) stopped neither the API nor the worker once Redis had died: their
 * shutdown waited for Redis for minutes, and npm start with them. The real entry points
 * (backend/api/src/main.ts, backend/worker/src/main.ts) run as child processes on a Redis of their
 * own, which is killed (or frozen) before the SIGTERM: each process must end by itself, saying so
 * when its shutdown deadline (shutdown.ts) cut the shutdown short.
 */
describe('stopping the API and the worker while Redis is down', () => {
  let redis: PrivateService;
  let host: ProcessHost;
  /** A bound for a hang, not a speed goal: the deadline is seconds, the hang it replaces minutes. */
  const HANG_MS = 60_000;

  beforeEach(async () => {
    redis = await startPrivateRedis();
    host = processHost(redis.url);
  });
  afterEach(async () => {
    await host.close();
    await redis.stop();
  });

  /** Logs as JSON lines on stdout, so the deadline's line can be read. */
  const logged = { LOG_LEVEL: 'info', LOG_PRETTY: 'false', SHUTDOWN_GRACE_MS: '500' };

  /** Resolves with the exit code or signal, or fails once the process has run `ms` after the signal. */
  function exitedWithin(child: ChildProcess, ms: number) {
    let timer: NodeJS.Timeout | undefined;
    return Promise.race([
      exited(child),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`still running ${ms} ms after SIGTERM`)), ms);
      }),
    ]).finally(() => clearTimeout(timer));
  }

  const deadlineLine = /shutdown did not finish within [\d.]+ s of SIGTERM/;

  /** Waits until the log shows that the cancel channel's connection lost Redis (it is reconnecting). */
  async function lostRedis(log: () => string) {
    const deadline = Date.now() + HANG_MS;
    while (!/cancel channel: .*ECONNREFUSED/.test(log())) {
      if (Date.now() > deadline) throw new Error('the process did not notice that Redis was gone');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** The worker entry point, once it has started; its log so far in `stdout()`. */
  async function startedWorker() {
    const child = startWorker(host, logged, { capture: true });
    host.children.push(child);
    let stdout = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr!.resume(); // read, so a chatty process never blocks on a full pipe
    const deadline = Date.now() + HANG_MS;
    while (!stdout.includes('worker started')) {
      if (child.exitCode !== null) throw new Error(`the worker exited with ${child.exitCode}`);
      if (Date.now() > deadline) throw new Error('the worker did not start');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return { child, stdout: () => stdout };
  }

  it('the API running jobs inside (WORKER_INLINE=true, as npm start can) ends after SIGTERM with Redis killed', async () => {
    const { child, output } = await startApi(host, { ...logged, WORKER_INLINE: 'true' }, { capture: true });
    host.children.push(child);
    await redis.kill();
    await lostRedis(() => output.stdout);
    child.kill('SIGTERM');
    const status = await exitedWithin(child, HANG_MS);
    // however it ended (its shutdown done, or failed), the deadline says so when it was the reason
    if (status === SHUTDOWN_OVERDUE_STATUS) expect(output.stdout).toMatch(deadlineLine);
  });

  it('the worker ends after SIGTERM with Redis killed', async () => {
    const { child, stdout } = await startedWorker();
    await redis.kill();
    await lostRedis(stdout);
    child.kill('SIGTERM');
    const status = await exitedWithin(child, HANG_MS);
    if (status === SHUTDOWN_OVERDUE_STATUS) expect(stdout()).toMatch(deadlineLine);
  });

  it('the worker ends after SIGTERM with Redis frozen (connections open, nothing answered)', async () => {
    const { child, stdout } = await startedWorker();
    redis.freeze();
    child.kill('SIGTERM');
    const status = await exitedWithin(child, HANG_MS);
    if (status === SHUTDOWN_OVERDUE_STATUS) expect(stdout()).toMatch(deadlineLine);
  });
});
