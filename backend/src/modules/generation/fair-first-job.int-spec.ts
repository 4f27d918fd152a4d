import { getModelToken } from '@nestjs/mongoose';
import type { Model } from 'mongoose';
import sharp from 'sharp';
import { CLONE_AMOUNT, type JobView } from '@studio/contracts';
import { balanceOf, eventually, grantCredits, signIn, uniqueName, type Client } from '../../../test/clients';
import { gatedClone, type GatedClone } from '../../../test/gated-engine';
import { startTestApp, type TestApp } from '../../../test/test-app';
import { EngineRegistry } from '../engines';
import { Job } from './job.schema';

const COPIES = CLONE_AMOUNT.max;

/**
 * Issue 54, point 3: a worker takes a job only when its engine pool can start it, so a newcomer
 * waits for at most one running job of another user's backlog. The worker's pool has one thread and
 * the clone queue keeps its default concurrency of 2: before, the worker took a backlog's second job
 * while the first ran (it waited for the pool), and the newcomer waited for both.
 */
describe('fair from the first job: a worker takes a job only when its pool can start it (real queue, Redis, database)', () => {
  let t: TestApp;
  let gated: ReturnType<typeof gatedClone>;
  let jobs: Model<Job>;
  let image: Buffer;

  beforeAll(async () => {
    t = await startTestApp({ JOB_WAIT_MS: '0', ENGINE_POOL_SIZE: '1', JOB_CONCURRENCY_CLONE: '2' });
    const registry = t.app.get(EngineRegistry);
    gated = gatedClone(registry.engineFor('clone')!);
    registry.override('clone', gated.engine);
    jobs = t.app.get<Model<Job>>(getModelToken(Job.name));
    image = await sharp({ create: { width: 24, height: 24, channels: 3, background: '#957' } })
      .png()
      .toBuffer();
  }, 60_000);

  afterAll(async () => {
    await t?.close();
  });

  const user = async (name: string, credits: number) => {
    const client = await signIn(t, uniqueName(name));
    await grantCredits(t, client.username, credits);
    return client;
  };
  const clone = async (client: Client, amount: number): Promise<JobView> => {
    const res = await client.agent
      .post('/api/generateNoise')
      .field('amount', String(amount))
      .attach('original', image, 'original.png');
    expect(res.status).toBe(200);
    return res.body.content.job as JobView;
  };
  const stateOf = async (job: JobView) => (await jobs.findById(job._id).lean())!.state;

  it("runs another user's job right after the backlog's running job, before the backlog's second", async () => {
    const alice = await user('alice', 3 * COPIES);
    const bob = await user('bob', 1);
    const a1 = await clone(alice, COPIES);
    const first: GatedClone = await gated.nextRun(); // a1 runs on the pool's one thread
    expect(first.amount).toBe(COPIES);
    const a2 = await clone(alice, COPIES);
    const a3 = await clone(alice, COPIES);
    const b = await clone(bob, 1);

    // The backlog waits in the queue (not in the worker), so fair share puts Bob's job first.
    expect(await stateOf(a2)).toBe('queued');
    expect((await bob.agent.get(`/api/jobs/${b._id}`)).body.content).toMatchObject({ position: 1 });

    first.finish();
    const second = await gated.nextRun();
    expect(second.amount).toBe(1); // Bob's, not a2
    expect(await stateOf(b)).toBe('running');
    expect(await stateOf(a2)).toBe('queued');

    second.finish();
    for (let i = 0; i < 2; i++) {
      const next = await gated.nextRun();
      expect(next.amount).toBe(COPIES);
      next.finish();
    }
    await eventually(async () => {
      for (const job of [a1, a2, a3, b]) expect(await stateOf(job)).toBe('succeeded');
    });
    const started = async (job: JobView) => (await jobs.findById(job._id).lean())!.startedAt!.getTime();
    expect(await started(b)).toBeLessThan(await started(a2));
    // Each paid for what it got, once.
    expect(await balanceOf(alice)).toBe(0);
    expect(await balanceOf(bob)).toBe(0);
  });
});
