import type { ChildProcess } from 'node:child_process';
import { getModelToken } from '@nestjs/mongoose';
import type { Model } from 'mongoose';
import sharp from 'sharp';
import type { JobView } from '@studio/contracts';
import {
  balanceOf,
  eventually,
  grantCredits,
  ledgerKindsOf,
  signIn,
  uniqueName,
} from '../../../test/clients';
import { fixture } from '../../../test/fixtures';
import { exited, startWorker } from '../../../test/processes';
import { startTestApp, type TestApp } from '../../../test/test-app';
import { Job } from './job.schema';

/**
 * The split deployment (WORKER_INLINE=false): the API takes the cancel, the job runs in a worker
 * process of its own, and only the Redis channel connects them.
 */
describe('cancel of a job running in a separate worker process', () => {
  let t: TestApp;
  let worker: ChildProcess | undefined;

  beforeAll(async () => {
    t = await startTestApp({ WORKER_INLINE: 'false', JOB_WAIT_MS: '0' });
  });
  afterAll(async () => {
    worker?.kill('SIGKILL');
    if (worker) await exited(worker);
    await t?.close();
  });

  it('stops the running engine in the worker: the next job starts long before the cancelled one could have ended', async () => {
    const user = await signIn(t, uniqueName('split'));
    await grantCredits(t, user.username, 100);
    const jobs = t.app.get<Model<Job>>(getModelToken(Job.name));
    // Many tiles of real super resolution: long enough to cancel in the middle.
    const big = await sharp(fixture('cgi-model-3.jpg')).resize(640, 640, { fit: 'cover' }).png().toBuffer();
    const small = await sharp({ create: { width: 24, height: 24, channels: 3, background: '#579' } })
      .png()
      .toBuffer();
    const submit = async (image: Buffer) => {
      const res = await user.agent
        .post('/api/superResolution')
        .field('author', user.username)
        .attach('original', image, 'in.png');
      expect(res.status).toBe(200);
      return res.body.content.job as JobView;
    };
    const before = await balanceOf(user);
    const long = await submit(big);
    const next = await submit(small);
    worker = startWorker(t, { WORKER_QUEUES: 'superResolution', JOB_CONCURRENCY_SUPER_RESOLUTION: '1' });

    // Well into the work: some tiles done, most to go.
    const running = await eventually(async () => {
      const row = (await jobs.findById(long._id).lean())!;
      expect(row.progress).toBeGreaterThanOrEqual(5);
      return row;
    }, 120_000);
    expect(running.progress).toBeLessThan(60);
    const res = await user.agent.post(`/api/jobs/${long._id}/cancel`);
    const cancelledAt = Date.now();
    expect(res.status).toBe(200);
    expect(res.body.content).toMatchObject({ cancelled: 1, refunded: long.cost });
    // What the cancelled run would still have needed, at the pace it went so far.
    const elapsed = cancelledAt - running.startedAt!.getTime();
    const remaining = (elapsed * (100 - running.progress)) / running.progress;

    const started = await eventually(async () => {
      const row = (await jobs.findById(next._id).lean())!;
      expect(row.startedAt).toBeDefined();
      return row.startedAt!.getTime();
    }, 120_000);
    // Recorded for the report: how long the worker took to let go of the cancelled job.
    process.stdout.write(
      `split cancel: next job started ${started - cancelledAt} ms after the cancel (${Math.round(remaining)} ms were left)\n`,
    );
    expect(started - cancelledAt).toBeLessThan(remaining / 2);

    await eventually(
      async () => expect((await jobs.findById(next._id).lean())!.state).toBe('succeeded'),
      120_000,
    );
    expect((await jobs.findById(long._id).lean())!).toMatchObject({ state: 'cancelled', outputs: [] });
    expect(await ledgerKindsOf(user, long._id)).toEqual(['refund', 'reservation']);
    expect(await balanceOf(user)).toBe(before - next.cost);
  }, 300_000);
});
