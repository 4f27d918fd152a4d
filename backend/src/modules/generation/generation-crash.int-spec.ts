import type { ChildProcess } from 'node:child_process';
import { getModelToken } from '@nestjs/mongoose';
import type { Queue } from 'bull';
import type { Model } from 'mongoose';
import sharp from 'sharp';
import { quoteTool, superResolutionUnits, type JobView } from '@studio/contracts';
import { startFakeA1111, type FakeA1111Server } from '@studio/inference';
import {
  balanceOf,
  downloadBytes,
  eventually,
  ledgerKindsOf,
  grantCredits,
  signIn,
  uniqueName,
} from '../../../test/clients';
import { exited, startWorker } from '../../../test/processes';
import { fixture } from '../../../test/fixtures';
import { startTestApp, type TestApp } from '../../../test/test-app';
import { LedgerService } from '../billing/ledger.service';
import { FoldersService } from '../folders/folders.service';
import { GenerationService } from './generation.service';
import { toolQueueToken } from '../engines';
import { JobLifecycle } from './job-lifecycle.service';
import { outputItemId } from './job-runner';
import { Job } from './job.schema';

// The bounds below (480 s for a worker to reach a state, 900 s a test, and the "time to spare" grace)
// only end a test that would never pass. A fresh worker process loads its engines, the content
// classifier and the provenance tool on its first job: beside two CPU hogs (npm run test:loaded)
// the takeover's second worker had not finished within 150 s, and a worker given 60 s of grace ran
// out of it. The tests wait for the states they need, however long the machine takes.

/** An image large enough that super resolution runs for several seconds (many tiles). */
const bigImage = () => sharp(fixture('cgi-model-3.jpg')).resize(640, 640, { fit: 'cover' }).png().toBuffer();

/** A fresh user with 10 credits asks for super resolution of a small square: the user and job. */
async function submitSmallUpscale(t: TestApp, prefix: string, side: number, background: string) {
  const user = await signIn(t, uniqueName(prefix));
  const userId = await grantCredits(t, user.username, 10);
  const image = await sharp({ create: { width: side, height: side, channels: 3, background } })
    .png()
    .toBuffer();
  const res = await user.agent
    .post('/api/superResolution')
    .field('author', user.username)
    .attach('original', image, 'small.png');
  expect(res.body.message).toBe('processing');
  return { user, userId, jobId: (res.body.content.job as JobView)._id };
}

describe('worker processes stopped mid-job (SIGKILL, SIGTERM)', () => {
  let t: TestApp;
  const workers: ChildProcess[] = [];

  beforeAll(async () => {
    // The API takes requests only; the jobs run in separate worker processes. A 15 s job lock (a
    // killed worker's job is taken over after it): with 3 s, a worker starved of CPU beside two
    // hogs missed its renewals and its job was taken back mid-run, again and again.
    t = await startTestApp({ WORKER_INLINE: 'false', JOB_LOCK_MS: '15000', JOB_WAIT_MS: '0' });
  });

  // Each test has the workers it starts, and no other.
  afterEach(async () => {
    for (const w of workers) w.kill('SIGKILL');
    await Promise.all(workers.splice(0).map(exited));
  });
  afterAll(() => t?.close());

  it('is taken over by another worker: the job completes once and is charged once', async () => {
    const user = await signIn(t, uniqueName('crash'));
    await grantCredits(t, user.username, 10);
    const image = await bigImage();
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
    }, 480_000);
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
    }, 480_000);
    expect(done.items).toHaveLength(1);
    const meta = await sharp(await downloadBytes(user, done.items[0].url)).metadata();
    expect([meta.width, meta.height]).toEqual([1280, 1280]);

    // Charged once: one reservation and one capture for the job, no refund; the balance says so.
    await eventually(async () => {
      expect(await ledgerKindsOf(user, jobId)).toEqual(['capture', 'reservation']);
    }, 30_000);
    // 640 px at 2x: 1280 x 1280, two started megapixels.
    expect(await balanceOf(user)).toBe(10 - quoteTool('superResolution', superResolutionUnits(640, 640, 2)));
    // One item in the folder, not one per attempt.
    const contents = await user.agent.get(`/api/getBulkInpaints/${done.folderId}`);
    expect(contents.body.content.inpaints).toHaveLength(1);
  }, 900_000);

  /**
   * SIGTERM: workers of a remote GPU engine (the fake A1111 server, 6 s per request) wait on HTTP,
   * so their event loop is free to stop in the middle of a job. (The local CPU engine computes in
   * long synchronous stretches: a SIGTERM is handled between them, usually when the job is done.)
   */
  describe('SIGTERM', () => {
    let gpu: FakeA1111Server;
    const gpuWorker = (grace: number) =>
      // The worker waits on HTTP, so its lock is renewed in time: only the shutdown hands a job back.
      startWorker(t, {
        ENGINE_SUPER_RESOLUTION: 'a1111',
        A1111_URL: gpu.url,
        WORKER_QUEUES: 'superResolution',
        SHUTDOWN_GRACE_MS: String(grace),
        JOB_LOCK_MS: '10000',
      });
    const upscales = () => gpu.requests.filter((r) => r.path === '/sdapi/v1/extra-single-image').length;

    beforeAll(async () => {
      gpu = await startFakeA1111();
      gpu.delayMs = 6000;
    });
    afterAll(() => gpu?.close());

    /** A super-resolution job of a fresh user with 10 credits, and a reader of its record. */
    async function submitJob() {
      const { user, jobId } = await submitSmallUpscale(t, 'stop', 64, '#3a6');
      const record = async () =>
        (await t.app.get<Model<Job>>(getModelToken(Job.name)).findById(jobId).lean())!;
      const underway = (requests: number) =>
        eventually(async () => {
          expect((await record()).state).toBe('running');
          expect(upscales()).toBe(requests);
        }, 480_000);
      return { user, jobId, record, underway };
    }

    it('with time to spare: the running job finishes, then the worker exits', async () => {
      const before = upscales();
      const { user, record, underway } = await submitJob();
      const worker = gpuWorker(480_000);
      workers.push(worker);
      await underway(before + 1);
      worker.kill('SIGTERM');
      // Nest closes the app, then raises the signal again to exit with it (1 had the close failed).
      expect(await exited(worker)).toBe('SIGTERM');
      const done = await record();
      expect(done.state).toBe('succeeded');
      expect(done.attempts).toBe(1);
      expect(done.settled).toBe(true);
      expect(upscales()).toBe(before + 1);
      expect(await balanceOf(user)).toBe(10 - 2);
    }, 900_000);

    it('with a short grace: the job is handed back and finished by another worker, charged once', async () => {
      const before = upscales();
      const { user, jobId, record, underway } = await submitJob();
      const first = gpuWorker(100);
      workers.push(first);
      await underway(before + 1);
      const ranBy = (await record()).worker;
      first.kill('SIGTERM');
      expect(await exited(first)).toBe('SIGTERM');
      // Handed back: its Bull lock is released rather than left to expire (a SIGKILL leaves it), so
      // the next stalled-job check of another worker requeues it; the first worker's work is dropped.
      const queue = t.app.get<Queue>(toolQueueToken('superResolution'), { strict: false });
      expect(await queue.client.exists(`${queue.toKey(jobId)}:lock`)).toBe(0);
      expect((await record()).state).toBe('running');

      const second = gpuWorker(480_000);
      workers.push(second);
      const done = await eventually(async () => {
        const current = await record();
        expect(current.state).toBe('succeeded');
        return current;
      }, 480_000);
      expect(done.attempts).toBe(2);
      expect(done.worker).not.toBe(ranBy);
      expect(done.outputs).toHaveLength(1);
      expect(upscales()).toBe(before + 2);
      await eventually(async () => expect(await balanceOf(user)).toBe(10 - 2), 30_000);
      expect(await ledgerKindsOf(user, jobId)).toEqual(['capture', 'reservation']);
    }, 900_000);
  });

  /**
   * One job ended by two parties. The test process plays the first worker with the real pieces a
   * worker uses (it takes the Bull job with a lock, marks the job running, stores its output
   * through FoldersService exactly as JobRunner does), so the crash lands exactly where the test
   * says: a real SIGKILL cannot be aimed between two database writes a millisecond apart.
   */
  describe('ended by two parties', () => {
    let gpu: FakeA1111Server;
    beforeAll(async () => {
      gpu = await startFakeA1111();
    });
    afterAll(() => gpu?.close());

    const jobs = () => t.app.get<Model<Job>>(getModelToken(Job.name));
    const queue = () => t.app.get<Queue>(toolQueueToken('superResolution'), { strict: false });

    /** A super-resolution job of a fresh user with 10 credits, taken by the "first worker". */
    async function takenJob() {
      const { user, userId, jobId } = await submitSmallUpscale(t, 'two', 32, '#a36');
      const bullJob = await eventually(async () => {
        const next = await queue().getNextJob();
        expect(next?.id).toBe(jobId);
        return next!;
      });
      const running = (await t.app.get(JobLifecycle).started(jobId))!;
      expect(running.state).toBe('running');
      const stored = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#000' } })
        .png()
        .toBuffer();
      const item = await t.app
        .get(FoldersService)
        .addItem({ id: userId, username: user.username, role: 'user' }, String(running.folder), {
          itemId: outputItemId(jobId, 0),
          data: stored,
          kind: 'image',
          contentType: 'image/png',
          title: 'Super resolution',
          jobId,
        });
      return { user, jobId, bullJob, running, item, stored };
    }

    it('a worker killed between storing its result and settling: the rerun stores it again and is charged once', async () => {
      const { user, jobId, stored } = await takenJob();
      // The first worker dies here: nothing settled, its Bull lock no longer renewed.
      const worker = startWorker(t, {
        ENGINE_SUPER_RESOLUTION: 'a1111',
        A1111_URL: gpu.url,
        WORKER_QUEUES: 'superResolution',
      });
      workers.push(worker);
      const done = await eventually(async () => {
        const current = (await jobs().findById(jobId).lean())!;
        expect(current.state).toBe('succeeded');
        expect(current.settled).toBe(true);
        return current;
      }, 480_000);
      expect(done.attempts).toBe(2);
      expect(done.outputs).toHaveLength(1);
      expect(done.outputs[0]._id).toBe(outputItemId(jobId, 0));
      // The rerun's output replaced the dead worker's file under the same key.
      const served = await downloadBytes(user, done.outputs[0].url);
      expect(served.equals(stored)).toBe(false);
      expect(await balanceOf(user)).toBe(10 - 2);
      expect(await ledgerKindsOf(user, jobId)).toEqual(['capture', 'reservation']);
      const contents = await user.agent.get(`/api/getBulkInpaints/${done.folder}`);
      expect(contents.body.content.inpaints).toHaveLength(1);
    }, 900_000);

    it('given up by the sweep while its worker computed: the late success cannot undo the refund', async () => {
      const { user, jobId, bullJob, running, item } = await takenJob();
      // Bull gives the job up (its lock was lost in a long synchronous stretch), the sweep fails it.
      bullJob.discard(); // no attempts left
      await bullJob.moveToFailed({ message: 'job stalled more than allowable limit' }, true);
      await jobs().updateOne({ _id: jobId }, { $set: { createdAt: new Date(Date.now() - 3600_000) } });
      expect((await t.app.get(GenerationService).sweep()).failed).toBeGreaterThanOrEqual(1);
      expect(await balanceOf(user)).toBe(10);

      // The first worker comes back and reports success: the refund stands, and no free result.
      const ended = await t.app.get(JobLifecycle).succeeded(running, [item]);
      expect(ended).toMatchObject({ state: 'failed', refunded: 2, outputs: [] });
      const record = (await jobs().findById(jobId).lean())!;
      expect(record).toMatchObject({ state: 'failed', refunded: 2, settled: true, outputs: [] });
      expect(await balanceOf(user)).toBe(10);
      expect(await ledgerKindsOf(user, jobId)).toEqual(['refund', 'reservation']);
      expect((await user.agent.get(`/api/content/${item._id}.png`)).status).toBe(404);
      const contents = await user.agent.get(`/api/getBulkInpaints/${record.folder}`);
      expect(contents.body.content.inpaints).toHaveLength(0);
      const view = (await user.agent.get(`/api/jobs/${jobId}`)).body.content as JobView;
      expect(view).toMatchObject({ state: 'failed', refunded: 2, items: [] });
    }, 60_000);

    it('captured before the sweep gave it up: the job ends succeeded and charged, not refunded', async () => {
      const { user, jobId, bullJob, running, item } = await takenJob();
      const lifecycle = t.app.get(JobLifecycle);
      // The worker's capture lands, then it dies before moving the job; Bull then gives it up.
      const ledger = t.app.get(LedgerService);
      expect(await ledger.capture(`job:${jobId}`)).toBe(true);
      bullJob.discard(); // no attempts left
      await bullJob.moveToFailed({ message: 'job stalled more than allowable limit' }, true);
      await jobs().updateOne({ _id: jobId }, { $set: { createdAt: new Date(Date.now() - 3600_000) } });
      await t.app.get(GenerationService).sweep();
      const record = (await jobs().findById(jobId).lean())!;
      expect(record).toMatchObject({ state: 'succeeded', settled: true });
      expect(record.refunded).toBeUndefined();
      expect(record.outputs.map((o) => o._id)).toEqual([item._id]);
      expect(await balanceOf(user)).toBe(10 - 2);
      expect(await ledgerKindsOf(user, jobId)).toEqual(['capture', 'reservation']);
      // The worker's own late report changes nothing.
      expect(await lifecycle.failed(running, 'late failure')).toMatchObject({ state: 'succeeded' });
      expect(await balanceOf(user)).toBe(10 - 2);
    }, 60_000);
  });
});
