import type { ChildProcess } from 'node:child_process';
import { startPrivateRedis, type PrivateService } from '../test/private-services';
import { processHost, type ProcessHost } from '../test/process-host';
import { spawnApi, startWorker } from '../test/processes';

/**
 * Issue 53: an API or worker (re)started while Redis is down (npm start's supervisor restarting it,
 * a rolling deploy during a failover) waits for Redis (infrastructure/wait-for-services.ts) and
 * starts once it is back, instead of failing its boot on the first command (or on a SUBSCRIBE
 * rejected where no one listened) and being restarted into the same failure.
 */
describe('starting the API and the worker while Redis is down', () => {
  let redis: PrivateService;
  let host: ProcessHost;
  /** A bound for a hang, not a speed goal. */
  const HANG_MS = 90_000;

  beforeEach(async () => {
    redis = await startPrivateRedis();
    await redis.kill();
    host = processHost(redis.url);
  });
  afterEach(async () => {
    await host.close();
    await redis.stop();
  });

  /** Polls until `done` holds; fails at once should the process end meanwhile. */
  async function until(child: ChildProcess, what: string, done: () => boolean | Promise<boolean>) {
    const deadline = Date.now() + HANG_MS;
    while (!(await done())) {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(
          `the process ended (${child.exitCode ?? child.signalCode}) while waiting until ${what}`,
        );
      if (Date.now() > deadline) throw new Error(`not ${what} within ${HANG_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  const logged = { LOG_LEVEL: 'info', LOG_PRETTY: 'false' };

  it('the API waits for Redis, then starts and is ready', async () => {
    const { child, url, output } = await spawnApi(host, logged, { capture: true });
    host.children.push(child);
    await until(child, 'waiting for Redis', () => output.stderr.includes('waiting for Redis'));
    await redis.restart();
    await until(child, 'ready', () =>
      fetch(`${url}/api/health/ready`).then(
        (res) => res.status === 200,
        () => false,
      ),
    );
  });

  it('the worker waits for Redis, then starts', async () => {
    const child = startWorker(host, logged, { capture: true });
    host.children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    await until(child, 'waiting for Redis', () => stderr.includes('waiting for Redis'));
    await redis.restart();
    await until(child, 'started', () => stdout.includes('worker started'));
  });
});
