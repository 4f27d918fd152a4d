import type { HttpException } from '@nestjs/common';
import { getModelToken } from '@nestjs/mongoose';
import type { Queue } from 'bull';
import { Types, type Model } from 'mongoose';
import sharp from 'sharp';
import type { Socket } from 'socket.io-client';
import { JobMessages, JobSocketEvents, type JobSocketPayloads, type JobView } from '@studio/contracts';
import {
  balanceOf,
  connectSocket,
  eventually,
  grantCredits,
  makeFolder,
  signIn,
  uniqueName,
  type Client,
} from '../../../test/clients';
import { gatedSuperResolution, type GatedRun } from '../../../test/gated-engine';
import { rectangleMask } from '../../../test/fixtures';
import { startTestApp, type TestApp } from '../../../test/test-app';
import { EngineRegistry, toolQueueToken } from '../engines';
import { Job } from './job.schema';
import { OpenJobLimit } from './open-job-limit';

type Seen = { name: string; payload: Record<string, unknown> };

const LIMIT = 4;

describe('fair share, the open-job limit and places with estimated times (real queue, Redis, database)', () => {
  let t: TestApp;
  let gated: ReturnType<typeof gatedSuperResolution>;
  let image: Buffer;
  let jobs: Model<Job>;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    t = await startTestApp({
      JOB_WAIT_MS: '0',
      JOB_CONCURRENCY_SUPER_RESOLUTION: '1',
      MAX_OPEN_JOBS_PER_USER: String(LIMIT),
    });
    const registry = t.app.get(EngineRegistry);
    gated = gatedSuperResolution(registry.engineFor('clone')!);
    registry.override('superResolution', gated.engine);
    jobs = t.app.get<Model<Job>>(getModelToken(Job.name));
    image = await sharp({ create: { width: 24, height: 24, channels: 3, background: '#579' } })
      .png()
      .toBuffer();
  }, 60_000);

  afterAll(async () => {
    // Let the jobs still held by the gated engine finish, so none is running when the app closes.
    const open = { state: { $in: ['queued', 'running'] } };
    const left = jobs ? await jobs.countDocuments(open) : 0;
    for (let i = 0; i < left; i++) await (await gated.nextRun()).finish();
    if (jobs) await eventually(async () => expect(await jobs.countDocuments(open)).toBe(0));
    for (const socket of sockets) socket.close();
    await t?.close();
  });

  const user = async (name: string, credits = 20) => {
    const client = await signIn(t, uniqueName(name));
    await grantCredits(t, client.username, credits);
    const socket = await connectSocket(t, client.cookie);
    sockets.push(socket);
    const seen: Seen[] = [];
    for (const event of Object.values(JobSocketEvents)) {
      socket.on(event, (payload: Record<string, unknown>) => seen.push({ name: event, payload }));
    }
    return { ...client, seen };
  };

  /** A 2x super resolution as the spec's client sends it (JSON with a data URL). */
  const superResolve = (client: Client) =>
    client.agent
      .post('/api/superResolution')
      .send({ original: `data:image/png;base64,${image.toString('base64')}`, author: client.username });
  const submit = async (client: Client): Promise<JobView> => {
    const res = await superResolve(client);
    expect(res.status).toBe(200);
    return res.body.content.job as JobView;
  };
  const jobView = async (client: Client, jobId: string) =>
    (await client.agent.get(`/api/jobs/${jobId}`)).body.content as JobView;

  it("serves users in turn: a newcomer's job runs before the backlog's later jobs", async () => {
    const alice = await user('alice');
    const bob = await user('bob');
    const carol = await user('carol');
    const a1 = await submit(alice);
    let run: GatedRun = await gated.nextRun(); // a1 runs; the rest wait behind it
    const a2 = await submit(alice);
    const a3 = await submit(alice);
    const a4 = await submit(alice);
    const b1 = await submit(bob);
    const b2 = await submit(bob);
    const c1 = await submit(carol);

    // The line, round by round: b1 and c1 (round 1, a1 had it), then a2 and b2, then a3, a4.
    const expected: [Client, JobView, number][] = [
      [bob, b1, 1],
      [carol, c1, 2],
      [alice, a2, 3],
      [bob, b2, 4],
      [alice, a3, 5],
      [alice, a4, 6],
    ];
    const etas: number[] = [];
    for (const [client, job, position] of expected) {
      const view = await jobView(client, job._id);
      expect(view.position).toBe(position);
      etas.push(view.etaSeconds!);
    }
    // Each waits for everything before it: the estimates grow along the line.
    for (let i = 1; i < etas.length; i++) expect(etas[i]).toBeGreaterThan(etas[i - 1]);
    const running = await jobView(alice, a1._id);
    expect(running.state).toBe('running');
    expect(running.etaSeconds).toBeGreaterThan(0);
    expect(running.etaSeconds!).toBeLessThan(etas[0]);
    // The list pages answer the same places.
    const history = (await alice.agent.get('/api/jobs/history')).body.content.items as JobView[];
    expect(history.find((j) => j._id === a3._id)).toMatchObject({ position: 5 });
    const recent = (await bob.agent.get('/api/jobs')).body.content as JobView[];
    expect(recent.find((j) => j._id === b2._id)).toMatchObject({ position: 4 });

    // Carol was told her place and time when her job was queued.
    const queued = carol.seen.find((e) => e.name === JobSocketEvents.queued)!
      .payload as JobSocketPayloads['job.queued'];
    expect(queued.position).toBe(2);
    expect(queued.job).toMatchObject({ _id: c1._id, position: 2, etaSeconds: expect.any(Number) });
    // Alice's jobs moved back when the others were put ahead of them: she was told, with times.
    await eventually(async () => {
      const pushes = alice.seen
        .filter((e) => e.name === JobSocketEvents.positions)
        .map((e) => e.payload as JobSocketPayloads['job.positions']);
      expect(pushes.at(-1)?.positions).toEqual([
        { jobId: a2._id, position: 3, etaSeconds: expect.any(Number) },
        { jobId: a3._id, position: 5, etaSeconds: expect.any(Number) },
        { jobId: a4._id, position: 6, etaSeconds: expect.any(Number) },
      ]);
    });

    // Run them one at a time; the records' start times give the order they were served in.
    for (let i = 0; i < 6; i++) {
      await run.finish();
      run = await gated.nextRun();
    }
    await run.finish();
    const ids = [a1, a2, a3, a4, b1, b2, c1].map((j) => j._id);
    const done = await eventually(async () => {
      const rows = await jobs.find({ _id: { $in: ids } }).lean();
      expect(rows.map((r) => r.state)).toEqual(Array(7).fill('succeeded'));
      return rows;
    });
    const served = done
      .sort((x, y) => x.startedAt!.getTime() - y.startedAt!.getTime())
      .map((r) => String(r._id));
    expect(served).toEqual([a1, b1, c1, a2, b2, a3, a4].map((j) => j._id));
    // Each run's pace was recorded for the estimates of later jobs.
    const queue = t.app.get<Queue>(toolQueueToken('superResolution'), { strict: false });
    expect(await queue.client.llen(queue.toKey('eta:superResolution:2'))).toBe(7);
  }, 60_000);

  it(`refuses a request past ${LIMIT} open jobs with 429 naming the limit, before any credit is reserved`, async () => {
    const dave = await user('dave');
    const folderId = await makeFolder(dave, 'Bulk');
    const open: JobView[] = [];
    for (let i = 0; i < LIMIT - 1; i++) open.push(await submit(dave));
    const firstRun = await gated.nextRun();
    const balance = await balanceOf(dave);
    const history = (await dave.agent.get('/api/credits/history')).body.content.items as unknown[];

    // A bulk batch of two does not fit beside three open jobs: the whole batch counts.
    const mask = await rectangleMask(24, 24, { left: 8, top: 8, w: 8, h: 8 });
    const batch = await dave.agent
      .post('/api/bulkInpaintImage')
      .field('author', dave.username)
      .field('prompt', 'freckles')
      .field('amount', '1')
      .field('folder', folderId)
      .attach('original', image, 'a.png')
      .attach('mask', mask, 'mask.png')
      .attach('files', image, 'b.png');
    expect(batch.status).toBe(429);
    expect(batch.body.content).toContain(JobMessages.tooManyWaiting);
    expect(batch.body.content).toContain(`at most ${LIMIT} jobs`);
    // Nothing reserved, nothing stored, no batch entry.
    expect(await balanceOf(dave)).toBe(balance);
    expect((await dave.agent.get('/api/credits/history')).body.content.items).toHaveLength(history.length);
    expect((await dave.agent.get('/api/jobs')).body.content).toHaveLength(LIMIT - 1);
    const contents = (await dave.agent.get(`/api/getBulkInpaints/${folderId}`)).body.content;
    expect(contents.inpaint).toEqual([]);

    // One more fits; the next does not.
    open.push(await submit(dave));
    const refused = await superResolve(dave);
    expect(refused.status).toBe(429);
    expect(refused.body.content).toContain(`at most ${LIMIT} jobs`);
    expect((await dave.agent.get('/api/jobs')).body.content).toHaveLength(LIMIT);

    // A job ends: its place is free again.
    await firstRun.finish();
    await eventually(async () => expect((await jobView(dave, open[0]._id)).state).toBe('succeeded'));
    expect((await superResolve(dave)).status).toBe(200);
  }, 60_000);

  it('holds under concurrent requests: exactly the limit is admitted, and charged', async () => {
    // Many admissions of one user at once, straight at the check: exactly LIMIT get through.
    const limit = t.app.get(OpenJobLimit);
    const someone = String(new Types.ObjectId());
    const tries = await Promise.allSettled(
      Array.from({ length: 20 }, () => limit.admit(someone, [String(new Types.ObjectId())])),
    );
    expect(tries.filter((r) => r.status === 'fulfilled')).toHaveLength(LIMIT);
    const refusals = tries.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(refusals.map((r) => (r.reason as HttpException).getStatus())).toEqual(Array(20 - LIMIT).fill(429));

    // Over HTTP: two open, three requests at once (a user's upload slots), two places left.
    const erin = await user('erin', 40);
    await submit(erin);
    await submit(erin);
    const answers = await Promise.all(Array.from({ length: 3 }, () => superResolve(erin)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 429]);
    expect(answers.find((a) => a.status === 429)!.body.content).toContain(`at most ${LIMIT} jobs`);
    const cost = (answers.find((a) => a.status === 200)!.body.content.job as JobView).cost;
    expect(await balanceOf(erin)).toBe(40 - LIMIT * cost);
    expect((await erin.agent.get('/api/jobs')).body.content).toHaveLength(LIMIT);
  }, 60_000);
});
