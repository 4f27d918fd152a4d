import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import type { JobView } from '@studio/contracts';
import {
  balanceOf,
  downloadBytes,
  eventually,
  grantCredits,
  signIn,
  uniqueName,
} from '../../../test/clients';
import { startTestApp, type TestApp } from '../../../test/test-app';

const FIXTURES = join(__dirname, '../../../../libs/inference/fixtures');
const WORKER_MAIN = join(__dirname, '../../../worker/src/main.ts');

/** A worker process of its own (the real worker entry point), on the test app's database and Redis. */
function startWorker(t: TestApp): ChildProcess {
  return spawn(process.execPath, ['-r', 'ts-node/register', WORKER_MAIN], {
    env: {
      ...process.env,
      TS_NODE_TRANSPILE_ONLY: 'true',
      TS_NODE_PROJECT: join(__dirname, '../../../../tsconfig.json'),
      NODE_ENV: 'test',
      MONGODB_URI: t.config.MONGODB_URI,
      REDIS_URL: t.config.REDIS_URL,
      REDIS_PREFIX: t.config.REDIS_PREFIX,
      STORAGE_DIR: t.config.STORAGE_DIR,
      JOB_LOCK_MS: t.config.JOB_LOCK_MS.toString(),
      LOG_LEVEL: 'silent',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve()),
  );

describe('a worker killed mid-job (SIGKILL)', () => {
  let t: TestApp;
  const workers: ChildProcess[] = [];

  beforeAll(async () => {
    // The API takes requests only; the jobs run in separate worker processes.
    t = await startTestApp({ WORKER_INLINE: 'false', JOB_LOCK_MS: '3000', JOB_WAIT_MS: '0' });
  });

  afterAll(async () => {
    for (const w of workers) w.kill('SIGKILL');
    await Promise.all(workers.map(exited));
    await t?.close();
  });

  it('is taken over by another worker: the job completes once and is charged once', async () => {
    const user = await signIn(t, uniqueName('crash'));
    await grantCredits(t, user.username, 10);
    // Large enough that super resolution runs for several seconds (many tiles).
    const image = await sharp(readFileSync(join(FIXTURES, 'cgi-model-3.jpg')))
      .resize(640, 640, { fit: 'cover' })
      .png()
      .toBuffer();
    const res = await user.agent
      .post('/api/superResolution')
      .field('author', user.username)
      .attach('original', image, 'big.png');
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('processing');
    const jobId = (res.body.content.job as JobView)._id;
    const job = async () => (await user.agent.get(`/api/jobs/${jobId}`)).body.content as JobView;

    const first = startWorker(t);
    workers.push(first);
    // Kill it once it is well into the work (a few tiles done, most to go).
    const seen: number[] = [];
    await eventually(async () => {
      const current = await job();
      seen.push(current.progress);
      expect(current.progress).toBeGreaterThanOrEqual(10);
    }, 90_000);
    first.kill('SIGKILL');
    await exited(first);
    const atKill = await job();
    console.log(`progress seen before the kill: ${[...new Set(seen)].join(', ')}`);
    expect(atKill.state).toBe('running');
    expect(atKill.progress).toBeLessThan(100);

    const second = startWorker(t);
    workers.push(second);
    const done = await eventually(async () => {
      const current = await job();
      expect(current.state).toBe('succeeded');
      return current;
    }, 150_000);
    expect(done.items).toHaveLength(1);
    const meta = await sharp(await downloadBytes(user, done.items[0].url)).metadata();
    expect([meta.width, meta.height]).toEqual([1280, 1280]);

    // Charged once: one reservation and one capture for the job, no refund; the balance says so.
    await eventually(async () => {
      const history = (await user.agent.get('/api/credits/history')).body.content.items as {
        kind: string;
        jobId?: string;
      }[];
      expect(
        history
          .filter((h) => h.jobId === jobId)
          .map((h) => h.kind)
          .sort(),
      ).toEqual(['capture', 'reservation']);
    }, 30_000);
    expect(await balanceOf(user)).toBe(10 - 2);
    // One item in the folder, not one per attempt.
    const contents = await user.agent.get(`/api/getBulkInpaints/${done.folderId}`);
    expect(contents.body.content.inpaints).toHaveLength(1);
  }, 300_000);
});
