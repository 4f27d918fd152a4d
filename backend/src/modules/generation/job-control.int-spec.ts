import { getQueueToken } from '@nestjs/bull';
import { getModelToken } from '@nestjs/mongoose';
import sharp from 'sharp';
import type { Socket } from 'socket.io-client';
import type { Model } from 'mongoose';
import {
  JobMessages,
  JobSocketEvents,
  SocketEvents,
  type CancelJobResult,
  type FolderContents,
  type JobSocketPayloads,
  type JobView,
} from '@studio/contracts';
import type { EncodedImage, InferenceEngine, RunContext } from '@studio/inference';
import type { Queue } from 'bull';
import {
  balanceOf,
  connectSocket,
  downloadBytes,
  eventually,
  grantCredits,
  ledgerKindsOf,
  makeFolder,
  PASSWORD,
  signIn,
  uniqueName,
  type Client,
  recordEvents,
} from '../../../test/clients';
import { rectangleMask } from '../../../test/fixtures';
import { startTestApp, type TestApp } from '../../../test/test-app';
import { AccountsRepository } from '../accounts/accounts.repository';
import { AuditEntry } from '../audit/audit-entry.schema';
import { FoldersService } from '../folders/folders.service';
import { StoragePort } from '../storage/storage.port';
import { EngineRegistry, toolQueueName } from '../engines';
import { Job } from './job.schema';
import { JobInputs } from './job-inputs.service';

/** One call of a gated engine method: the test ends it; a cancel aborts it through its signal. */
interface Run {
  signal?: AbortSignal;
  finish(): Promise<void>;
}

/**
 * Replaces one image method of the real engine by a call that waits for the test (so a job can
 * be held running) and, like an engine honouring RunContext.signal, rejects once it is aborted.
 * The result is the input image itself.
 */
function gated(real: InferenceEngine, method: 'superResolve' | 'inpaint') {
  const started: Run[] = [];
  const waiters: ((run: Run) => void)[] = [];
  let taken = 0;
  const call = (request: { image: Buffer }, context?: RunContext) =>
    new Promise<EncodedImage>((resolve, reject) => {
      const signal = context?.signal;
      signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
      const run: Run = {
        signal,
        finish: async () => {
          const { width = 1, height = 1 } = await sharp(request.image).metadata();
          resolve({ data: request.image, format: 'png', width, height });
        },
      };
      started.push(run);
      const waiter = waiters.shift();
      if (waiter) waiter(started[taken++]);
    });
  const engine = Object.assign(Object.create(real) as InferenceEngine, { [method]: call });
  return {
    engine,
    /** How many calls started so far. */
    calls: () => started.length,
    nextRun(): Promise<Run> {
      if (started.length > taken) return Promise.resolve(started[taken++]);
      return new Promise((resolve) => waiters.push(resolve));
    },
  };
}

const record = (socket: Socket) =>
  recordEvents(socket, [JobSocketEvents.cancelled, SocketEvents.balanceChanged]);

describe('cancel, run again and the inputs of a job (real queue, Redis, database, storage)', () => {
  let t: TestApp;
  let alice: Client;
  let aliceId: string;
  let bob: Client;
  let aliceTabs: Socket[];
  let superResolution: ReturnType<typeof gated>;
  let inpaint: ReturnType<typeof gated>;
  let jobs: Model<Job>;
  let image: Buffer;
  const adminName = uniqueName('boss');

  beforeAll(async () => {
    t = await startTestApp({
      JOB_WAIT_MS: '0',
      JOB_CONCURRENCY_SUPER_RESOLUTION: '1',
      JOB_CONCURRENCY_INPAINT: '1',
      ADMIN_USERNAME: adminName,
      ADMIN_PASSWORD: 'admin-password-1',
    });
    alice = await signIn(t, uniqueName('alice'));
    bob = await signIn(t, uniqueName('bob'));
    aliceId = await grantCredits(t, alice.username, 500);
    await grantCredits(t, bob.username, 50);
    // Two open tabs of Alice: both must hear of a cancel.
    aliceTabs = [await connectSocket(t, alice.cookie), await connectSocket(t, alice.cookie)];
    const registry = t.app.get(EngineRegistry);
    const real = registry.engineFor('clone')!;
    superResolution = gated(real, 'superResolve');
    inpaint = gated(real, 'inpaint');
    registry.override('superResolution', superResolution.engine);
    registry.override('inpaint', inpaint.engine);
    jobs = t.app.get(getModelToken(Job.name));
    image = await sharp({ create: { width: 24, height: 24, channels: 3, background: '#579' } })
      .png()
      .toBuffer();
  }, 60_000);

  afterAll(async () => {
    for (const tab of aliceTabs ?? []) tab.close();
    await t?.close();
  });

  const submitSuperResolution = async (client: Client = alice): Promise<JobView> => {
    const res = await client.agent
      .post('/api/superResolution')
      .field('author', client.username)
      .attach('original', image, 'small.png');
    expect(res.status).toBe(200);
    return res.body.content.job as JobView;
  };
  const stateOf = async (jobId: string) => (await jobs.findById(jobId).lean())!.state;
  const queue = (): Queue => t.app.get(getQueueToken(toolQueueName('superResolution')));

  it('cancels a queued job: removed from its queue, refunded in full, every tab told', async () => {
    const seen = aliceTabs.map(record);
    const before = await balanceOf(alice);
    const running = await submitSuperResolution();
    const held = await superResolution.nextRun();
    const waiting = await submitSuperResolution();
    expect(await balanceOf(alice)).toBe(before - running.cost - waiting.cost);
    expect(await queue().getJob(waiting._id)).not.toBeNull();

    const res = await alice.agent.post(`/api/jobs/${waiting._id}/cancel`);
    expect(res.status).toBe(200);
    const result = res.body.content as CancelJobResult;
    expect(result).toMatchObject({ cancelled: 1, refunded: waiting.cost });
    expect(result.jobs[0]).toMatchObject({ _id: waiting._id, state: 'cancelled', refunded: waiting.cost });
    expect(result.jobs[0].cancelledByStaff).toBeUndefined();
    expect(await balanceOf(alice)).toBe(before - running.cost);
    expect(await queue().getJob(waiting._id)).toBeNull();
    expect(await ledgerKindsOf(alice, waiting._id)).toEqual(['refund', 'reservation']);

    // Both tabs hear the cancel and the new balance.
    for (const events of seen) {
      await eventually(async () => {
        const cancelled = events.find((e) => e.name === JobSocketEvents.cancelled)
          ?.payload as JobSocketPayloads['job.cancelled'];
        expect(cancelled).toMatchObject({ refunded: waiting.cost, job: { _id: waiting._id } });
        expect(
          events.some((e) => e.name === SocketEvents.balanceChanged && e.payload.delta === waiting.cost),
        ).toBe(true);
      });
    }

    // A second cancel: it has ended.
    const again = await alice.agent.post(`/api/jobs/${waiting._id}/cancel`);
    expect(again.status).toBe(409);
    expect(again.body.content).toBe(JobMessages.alreadyEnded);

    // The cancelled job never runs: the held one finishes and nothing else starts.
    await held.finish();
    await eventually(async () => expect(await stateOf(running._id)).toBe('succeeded'));
    expect(superResolution.calls()).toBe(1);
    expect(await balanceOf(alice)).toBe(before - running.cost);
  }, 60_000);

  it('cancels a running local job: its engine signal is aborted, the slot freed, refunded in full', async () => {
    const before = await balanceOf(alice);
    const running = await submitSuperResolution();
    const run = await superResolution.nextRun();
    await eventually(async () => expect(await stateOf(running._id)).toBe('running'));
    const next = await submitSuperResolution();

    const res = await alice.agent.post(`/api/jobs/${running._id}/cancel`);
    expect(res.status).toBe(200);
    expect(res.body.content).toMatchObject({ cancelled: 1, refunded: running.cost });
    await eventually(async () => expect(run.signal?.aborted).toBe(true));
    // The runner let go of it: the next job starts in the only slot.
    const nextRun = await superResolution.nextRun();
    expect(await stateOf(running._id)).toBe('cancelled');
    await nextRun.finish();
    await eventually(async () => expect(await stateOf(next._id)).toBe('succeeded'));
    expect(await balanceOf(alice)).toBe(before - next.cost);
    expect(await ledgerKindsOf(alice, running._id)).toEqual(['refund', 'reservation']);
    // No result of the cancelled run was kept, and it was not failed or retried afterwards.
    const record = (await jobs.findById(running._id).lean())!;
    expect(record).toMatchObject({ state: 'cancelled', outputs: [], refunded: running.cost });
    expect(record.attempts).toBe(1);
  }, 60_000);

  it('ends a cancel racing a finish in exactly one of capture and refund, balance exact', async () => {
    const before = await balanceOf(alice);
    let spent = 0;
    const outcomes: string[] = [];
    const folders = t.app.get(FoldersService);
    for (let trial = 0; trial < 12; trial += 1) {
      const job = await submitSuperResolution();
      const run = await superResolution.nextRun();
      const finishing = run.finish();
      // Even trials: the cancel goes out with the finish. Odd ones: once the run has stored its
      // result, so the cancel's refund meets the run's capture head on.
      if (trial % 2 === 1) {
        await eventually(async () => expect(await folders.jobOutputs(aliceId, job._id)).toHaveLength(1));
      }
      const cancel = await alice.agent.post(`/api/jobs/${job._id}/cancel`);
      await finishing;
      const record = await eventually(async () => {
        const row = (await jobs.findById(job._id).lean())!;
        expect(['succeeded', 'cancelled']).toContain(row.state);
        expect(row.settled).toBe(true);
        return row;
      });
      const kinds = await ledgerKindsOf(alice, job._id);
      if (record.state === 'succeeded') {
        expect(cancel.status).toBe(409);
        expect(kinds).toEqual(['capture', 'reservation']);
        expect(record.outputs).toHaveLength(1);
        spent += job.cost;
      } else {
        expect(cancel.status).toBe(200);
        expect(cancel.body.content).toMatchObject({ cancelled: 1, refunded: job.cost });
        expect(kinds).toEqual(['refund', 'reservation']);
        // No result without payment: an item the run stored is gone again.
        await eventually(async () => {
          const items = (await alice.agent.get(`/api/jobs/${job._id}`)).body.content.items as unknown[];
          expect(items).toEqual([]);
        });
      }
      outcomes.push(record.state);
    }
    expect(await balanceOf(alice)).toBe(before - spent);
    expect(outcomes).toHaveLength(12);
  }, 120_000);

  it("refuses another user's cancel with 404, and lets support cancel it, audited with who did it", async () => {
    const before = await balanceOf(bob);
    const held = await submitSuperResolution();
    const heldRun = await superResolution.nextRun();
    const bobs = await submitSuperResolution(bob);

    // Alice cannot cancel Bob's job, nor see whether it exists.
    const refused = await alice.agent.post(`/api/jobs/${bobs._id}/cancel`);
    expect(refused.status).toBe(404);
    expect(refused.body.content).toBe(JobMessages.notFound);
    expect((await alice.agent.post(`/api/jobs/${bobs._id}/retry`).send({ expectedCost: 1 })).status).toBe(
      404,
    );
    expect((await alice.agent.get(`/api/jobs/${bobs._id}/inputs/0`)).status).toBe(404);
    expect(await stateOf(bobs._id)).toBe('queued');

    const supportName = uniqueName('help');
    await signIn(t, supportName);
    const accounts = t.app.get(AccountsRepository);
    await accounts.setRole((await accounts.findByUsername(supportName))!.id, 'support');
    const support = await signIn(t, supportName);
    const res = await support.agent.post(`/api/jobs/${bobs._id}/cancel`);
    expect(res.status).toBe(200);
    expect(res.body.content).toMatchObject({ cancelled: 1, refunded: bobs.cost });
    // Staff learn the job's state, not its content.
    expect(res.body.content.jobs[0]).toMatchObject({ state: 'cancelled', items: [], settings: {} });
    expect(await balanceOf(bob)).toBe(before);
    const view = (await bob.agent.get(`/api/jobs/${bobs._id}`)).body.content as JobView;
    expect(view).toMatchObject({ state: 'cancelled', cancelledByStaff: true });
    const audit = t.app.get<Model<AuditEntry>>(getModelToken(AuditEntry.name));
    const entry = await eventually(async () => {
      const row = await audit.findOne({ eventId: `job-cancelled:${bobs._id}` }).lean();
      expect(row).not.toBeNull();
      return row!;
    });
    expect(entry.author).toMatchObject({ username: supportName });
    expect(entry.message).toContain(bob.username);
    await heldRun.finish();
    await eventually(async () => expect(await stateOf(held._id)).toBe('succeeded'));
  }, 60_000);

  it('cancels a half-done bulk batch: finished images stay, exactly the rest is refunded', async () => {
    const folderId = await makeFolder(alice, 'Bulk');
    const mask = await rectangleMask(24, 24, { left: 8, top: 8, w: 8, h: 8 });
    const before = await balanceOf(alice);
    const res = await alice.agent
      .post('/api/bulkInpaintImage')
      .field('author', alice.username)
      .field('prompt', 'freckles')
      .field('amount', '4')
      .field('folder', folderId)
      .field('inpaintName', 'Freckles')
      .attach('original', image, 'a.png')
      .attach('mask', mask, 'mask.png');
    expect(res.status).toBe(200);
    const batchJobs = res.body.content.jobs as JobView[];
    expect(batchJobs).toHaveLength(4);
    const batchId = batchJobs[0].batch!.id;
    const cost = batchJobs.reduce((sum, job) => sum + job.cost, 0);
    expect(await balanceOf(alice)).toBe(before - cost);

    // Two finish, the third is running, the fourth waits.
    await (await inpaint.nextRun()).finish();
    await (await inpaint.nextRun()).finish();
    const third = await inpaint.nextRun();
    const done = batchJobs.slice(0, 2).reduce((sum, job) => sum + job.cost, 0);
    await eventually(async () => {
      const states = await Promise.all(batchJobs.map((job) => stateOf(job._id)));
      expect(states.filter((s) => s === 'succeeded')).toHaveLength(2);
    });

    const cancel = await alice.agent.post(`/api/jobs/batches/${batchId}/cancel`);
    expect(cancel.status).toBe(200);
    const result = cancel.body.content as CancelJobResult;
    expect(result).toMatchObject({ cancelled: 2, refunded: cost - done });
    expect(result.jobs.map((job) => job.state).sort()).toEqual([
      'cancelled',
      'cancelled',
      'succeeded',
      'succeeded',
    ]);
    await eventually(async () => expect(third.signal?.aborted).toBe(true));
    expect(await balanceOf(alice)).toBe(before - done);

    const contents = (await alice.agent.get(`/api/getBulkInpaints/${folderId}`)).body
      .content as FolderContents;
    expect(contents.inpaints).toHaveLength(2);
    expect(contents.inpaint).toEqual([
      expect.objectContaining({ title: 'Freckles (2 of 4 cancelled, refunded)', amount: 4 }),
    ]);
    // Another user's batch is not found; a batch with nothing open has ended.
    expect((await bob.agent.post(`/api/jobs/batches/${batchId}/cancel`)).status).toBe(404);
    expect((await alice.agent.post(`/api/jobs/batches/${batchId}/cancel`)).status).toBe(409);
  }, 60_000);

  it('runs a job again with the same inputs and settings, charged again at the confirmed price', async () => {
    const folderId = await makeFolder(alice, 'Copies');
    const res = await alice.agent
      .post('/api/generateNoise')
      .field('author', alice.username)
      .field('folder', folderId)
      .field('amount', '3')
      .attach('original', image, 'small.png');
    expect(res.status).toBe(200);
    const first = res.body.content.job as JobView;
    await eventually(async () => expect(await stateOf(first._id)).toBe('succeeded'));
    const view = (await alice.agent.get(`/api/jobs/${first._id}`)).body.content as JobView;
    expect(view).toMatchObject({ settings: { amount: 3 }, inputCount: 1 });

    const before = await balanceOf(alice);
    const wrong = await alice.agent
      .post(`/api/jobs/${first._id}/retry`)
      .send({ expectedCost: first.cost + 1 });
    expect(wrong.status).toBe(409);
    expect(wrong.body).toEqual({ message: 'error', content: JobMessages.priceChanged, cost: first.cost });
    expect((await alice.agent.post(`/api/jobs/${first._id}/retry`).send({ expectedCost: 'x' })).status).toBe(
      400,
    );
    expect(await balanceOf(alice)).toBe(before);

    const again = await alice.agent.post(`/api/jobs/${first._id}/retry`).send({ expectedCost: first.cost });
    expect(again.status).toBe(200);
    const second = again.body.content as JobView;
    expect(second._id).not.toBe(first._id);
    expect(second).toMatchObject({
      tool: 'clone',
      cost: first.cost,
      folderId,
      settings: { amount: 3 },
      inputCount: 1,
    });
    expect(await balanceOf(alice)).toBe(before - first.cost);
    const done = await eventually(async () => {
      const job = (await alice.agent.get(`/api/jobs/${second._id}`)).body.content as JobView;
      expect(job.state).toBe('succeeded');
      return job;
    });
    expect(done.items).toHaveLength(3);
    // The same input, byte for byte.
    const [one, two] = await Promise.all(
      [first._id, second._id].map((id) => downloadBytes(alice, `/api/jobs/${id}/inputs/0`)),
    );
    expect(two.equals(one)).toBe(true);
  }, 60_000);

  it('serves inputs to their owner only, keeps them after success and removes them with the outputs', async () => {
    const folderId = await makeFolder(alice, 'Kept');
    const res = await alice.agent
      .post('/api/generateNoise')
      .field('author', alice.username)
      .field('folder', folderId)
      .field('amount', '2')
      .attach('original', image, 'small.png');
    const job = res.body.content.job as JobView;
    const done = await eventually(async () => {
      const view = (await alice.agent.get(`/api/jobs/${job._id}`)).body.content as JobView;
      expect(view.state).toBe('succeeded');
      return view;
    });
    expect(done.inputCount).toBe(1);
    const input = await alice.agent.get(`/api/jobs/${job._id}/inputs/0`).buffer(true);
    expect(input.status).toBe(200);
    expect(input.headers['content-type']).toBe('image/png');
    const stored = (await jobs.findById(job._id).lean())!.inputs;
    expect(stored).toHaveLength(1);
    const storage = t.app.get(StoragePort);
    expect(await storage.exists(stored[0])).toBe(true);
    // Not Bob's to see; an index past the inputs is gone; a bad index is a 400.
    expect((await bob.agent.get(`/api/jobs/${job._id}/inputs/0`)).status).toBe(404);
    expect((await alice.agent.get(`/api/jobs/${job._id}/inputs/1`)).status).toBe(410);
    expect((await alice.agent.get(`/api/jobs/${job._id}/inputs/-1`)).status).toBe(400);

    // One output deleted: the inputs stay; the last one: they go.
    const [first, second] = done.items;
    expect((await alice.agent.delete(`/api/content/${first._id}`)).status).toBe(200);
    // The first deletion's event is handled before the second's is sent: the inputs are still there.
    await eventually(async () => {
      const audit = t.app.get<Model<AuditEntry>>(getModelToken(AuditEntry.name));
      expect(await audit.findOne({ detail: `Item ${first._id}` }).lean()).not.toBeNull();
    });
    expect(await storage.exists(stored[0])).toBe(true);
    expect((await alice.agent.delete(`/api/content/${second._id}`)).status).toBe(200);
    await eventually(async () => {
      const view = (await alice.agent.get(`/api/jobs/${job._id}`)).body.content as JobView;
      expect(view.inputCount).toBe(0);
    });
    expect(await storage.exists(stored[0])).toBe(false);
    const gone = await alice.agent.get(`/api/jobs/${job._id}/inputs/0`);
    expect(gone.status).toBe(410);
    expect(gone.body.content).toBe(JobMessages.inputsGone);
    const retry = await alice.agent.post(`/api/jobs/${job._id}/retry`).send({ expectedCost: job.cost });
    expect(retry.status).toBe(410);
  }, 60_000);

  it('keeps the inputs of a cancelled job for the retention period, then the sweep removes them', async () => {
    const held = await submitSuperResolution();
    const heldRun = await superResolution.nextRun();
    const waiting = await submitSuperResolution();
    expect((await alice.agent.post(`/api/jobs/${waiting._id}/cancel`)).status).toBe(200);
    const record = (await jobs.findById(waiting._id).lean())!;
    expect(record.inputs).toHaveLength(1);
    const days = (record.inputsExpireAt!.getTime() - record.finishedAt!.getTime()) / 86_400_000;
    expect(days).toBe(t.config.JOB_INPUTS_RETENTION_DAYS);
    const storage = t.app.get(StoragePort);
    expect(await storage.exists(record.inputs[0])).toBe(true);

    const sweep = t.app.get(JobInputs);
    await sweep.sweep(new Date(record.inputsExpireAt!.getTime() - 1000));
    expect(await storage.exists(record.inputs[0])).toBe(true);
    expect(await sweep.sweep(new Date(record.inputsExpireAt!.getTime() + 1000))).toBeGreaterThanOrEqual(1);
    expect(await storage.exists(record.inputs[0])).toBe(false);
    expect((await jobs.findById(waiting._id).lean())!.inputs).toEqual([]);
    await heldRun.finish();
    await eventually(async () => expect(await stateOf(held._id)).toBe('succeeded'));
    // A succeeded job with outputs has no expiry: its inputs live with its outputs.
    expect((await jobs.findById(held._id).lean())!.inputsExpireAt).toBeUndefined();
  }, 60_000);

  it("removes a job's inputs with a takedown of its output, and with the account", async () => {
    const carol = await signIn(t, uniqueName('carol'));
    await grantCredits(t, carol.username, 10);
    const storage = t.app.get(StoragePort);
    const cloneDone = async () => {
      const res = await carol.agent
        .post('/api/generateNoise')
        .field('author', carol.username)
        .field('amount', '1')
        .attach('original', image, 'small.png');
      expect(res.status).toBe(200);
      const jobId = (res.body.content.job as JobView)._id;
      return eventually(async () => {
        const row = (await jobs.findById(jobId).lean())!;
        expect(row.state).toBe('succeeded');
        expect(await storage.exists(row.inputs[0])).toBe(true);
        return row;
      });
    };

    const taken = await cloneDone();
    const admin = await signIn(t, adminName, 'admin-password-1');
    const takedown = await admin.agent
      .post(`/api/admin/content/${taken.outputs[0]._id}/takedown`)
      .send({ reason: 'Reported', mode: 'hide' });
    expect(takedown.status).toBe(200);
    await eventually(async () => expect((await jobs.findById(taken._id).lean())!.inputs).toEqual([]));
    expect(await storage.exists(taken.inputs[0])).toBe(false);

    const kept = await cloneDone();
    const deleted = await carol.agent.delete('/api/account').send({ password: PASSWORD });
    expect(deleted.status).toBe(200);
    expect(await storage.exists(kept.inputs[0])).toBe(false);
    expect(await jobs.findById(kept._id).lean()).toBeNull();
  }, 60_000);
});
