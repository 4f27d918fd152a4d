import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mongoose';
import { startPrivateRedis, type PrivateService } from '../test/private-services';
import { exited, spawnApi, startWorker } from '../test/processes';
import { loadConfig, type AppConfig } from './config/app-config';

/**
 * Issue 53: an API or worker (re)started while Redis is down (npm start's supervisor restarting it,
 * a rolling deploy during a failover) waits for Redis (infrastructure/wait-for-services.ts) and
 * starts once it is back, instead of failing its boot on the first command (or on a SUBSCRIBE
 * rejected where no one listened) and being restarted into the same failure.
 */
describe('starting the API and the worker while Redis is down', () => {
  let redis: PrivateService;
  let host: { config: AppConfig };
  const children: ChildProcess[] = [];
  /** A bound for a hang, not a speed goal. */
  const HANG_MS = 90_000;

  beforeEach(async () => {
    redis = await startPrivateRedis();
    await redis.kill();
    const mongo = process.env.TEST_MONGODB_URL;
    if (!mongo) throw new Error('TEST_MONGODB_URL is not set: run the tests with `npm test`');
    const id = randomBytes(4).toString('hex');
    host = {
      config: loadConfig({
        NODE_ENV: 'test',
        MONGODB_URI: `${mongo}/t_${id}`,
        REDIS_URL: redis.url,
        REDIS_PREFIX: `t_${id}`,
        STORAGE_DIR: mkdtempSync(join(tmpdir(), 'studio-storage-')),
        ENGINE_POOL_NICE: '0',
      }),
    };
  });
  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) {
        const gone = exited(child);
        child.kill('SIGKILL');
        await gone;
      }
    }
    await redis.stop();
    const conn = await createConnection(host.config.MONGODB_URI).asPromise();
    await conn.dropDatabase().catch(() => undefined);
    await conn.close();
    rmSync(host.config.STORAGE_DIR, { recursive: true, force: true });
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
    children.push(child);
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
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    await until(child, 'waiting for Redis', () => stderr.includes('waiting for Redis'));
    await redis.restart();
    await until(child, 'started', () => stdout.includes('worker started'));
  });
});
