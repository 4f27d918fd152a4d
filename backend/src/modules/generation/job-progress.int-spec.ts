import sharp from 'sharp';
import type { Socket } from 'socket.io-client';
import {
  JobSocketEvents,
  SocketEvents,
  type FolderChange,
  type JobSocketPayloads,
  type JobView,
} from '@studio/contracts';
import {
  connectSocket,
  eventually,
  grantCredits,
  signIn,
  uniqueName,
  type Client,
  recordEvents,
  type SeenEvent,
} from '../../../test/clients';
import { gatedSuperResolution, type GatedRun } from '../../../test/gated-engine';
import { startTestApp, type TestApp } from '../../../test/test-app';
import { EngineRegistry } from '../engines';

/** Every job event a socket receives. */
const record = (socket: Socket) => recordEvents(socket, Object.values(JobSocketEvents));

describe('job progress and places in line reach the owner only (real queue, Redis, database)', () => {
  let t: TestApp;
  let alice: Client;
  let bob: Client;
  let aliceSocket: Socket;
  let bobSocket: Socket;
  let aliceSeen: SeenEvent[];
  let bobSeen: SeenEvent[];
  let gated: ReturnType<typeof gatedSuperResolution>;
  let image: Buffer;

  beforeAll(async () => {
    t = await startTestApp({ JOB_WAIT_MS: '0', JOB_CONCURRENCY_SUPER_RESOLUTION: '1' });
    alice = await signIn(t, uniqueName('alice'));
    bob = await signIn(t, uniqueName('bob'));
    await grantCredits(t, alice.username, 20);
    aliceSocket = await connectSocket(t, alice.cookie);
    bobSocket = await connectSocket(t, bob.cookie);
    aliceSeen = record(aliceSocket);
    bobSeen = record(bobSocket);
    const registry = t.app.get(EngineRegistry);
    gated = gatedSuperResolution(registry.engineFor('clone')!);
    registry.override('superResolution', gated.engine);
    image = await sharp({ create: { width: 24, height: 24, channels: 3, background: '#579' } })
      .png()
      .toBuffer();
  }, 60_000);

  afterAll(async () => {
    aliceSocket?.close();
    bobSocket?.close();
    await t?.close();
  });

  const submit = async (): Promise<JobView> => {
    const res = await alice.agent
      .post('/api/superResolution')
      .field('author', alice.username)
      .attach('original', image, 'small.png');
    expect(res.status).toBe(200);
    return res.body.content.job as JobView;
  };
  const progressOf = (jobId: string) =>
    aliceSeen
      .filter((e) => e.name === JobSocketEvents.progress && e.payload.jobId === jobId)
      .map((e) => (e.payload as JobSocketPayloads['job.progress']).progress);

  it('pushes the start, every step (the last of a quick burst too) and the new places in line', async () => {
    const first = await submit();
    const running: GatedRun = await gated.nextRun();
    // Started: the owner hears at once, before any step.
    await eventually(async () => expect(progressOf(first._id)).toEqual([0]));

    const second = await submit();
    const third = await submit();
    const queuedAt = (jobId: string) =>
      (
        aliceSeen.find((e) => e.name === JobSocketEvents.queued && (e.payload.job as JobView)._id === jobId)
          ?.payload as JobSocketPayloads['job.queued'] | undefined
      )?.position;
    await eventually(async () => {
      expect(queuedAt(second._id)).toBe(1);
      expect(queuedAt(third._id)).toBe(2);
    });

    // Two steps inside one throttle window: the second is sent when the window ends, not dropped.
    running.report(0.3);
    running.report(0.6);
    await eventually(async () => expect(progressOf(first._id)).toEqual([0, 30, 60]));

    // The first ends, the second starts: the third moves up to first in line.
    await running.finish();
    const next = await gated.nextRun();
    await eventually(async () => {
      const positions = aliceSeen
        .filter((e) => e.name === JobSocketEvents.positions)
        .map((e) => e.payload as JobSocketPayloads['job.positions']);
      expect(positions.at(-1)).toEqual({
        tool: 'superResolution',
        positions: [{ jobId: third._id, position: 1, etaSeconds: expect.any(Number) }],
      });
    });
    await next.finish();
    await (await gated.nextRun()).finish();
    await eventually(async () =>
      expect(
        aliceSeen
          .filter((e) => e.name === JobSocketEvents.completed)
          .map((e) => (e.payload.job as JobView)._id),
      ).toEqual(expect.arrayContaining([first._id, second._id, third._id])),
    );

    // Bob, connected all along, heard nothing of Alice's jobs.
    expect(bobSeen).toEqual([]);
  }, 60_000);

  it("tells the folder's owner once per job, with all its results and the folder's count", async () => {
    const folderId = (await alice.agent.post('/api/makeFolder').send({ title: 'Clones' })).body.content
      ._id as string;
    const changes: FolderChange[] = [];
    aliceSocket.on(SocketEvents.folderChanged, (change: FolderChange) => {
      if (change.folderId === folderId && change.added) changes.push(change);
    });
    const res = await alice.agent
      .post('/api/generateNoise')
      .field('author', alice.username)
      .field('folder', folderId)
      .field('amount', '3')
      .attach('original', image, 'small.png');
    expect(res.status).toBe(200);
    const jobId = (res.body.content.job as JobView)._id;
    const done = await eventually(async () => {
      const completed = aliceSeen.find(
        (e) => e.name === JobSocketEvents.completed && (e.payload.job as JobView)._id === jobId,
      );
      expect(completed).toBeDefined();
      return completed!.payload.job as JobView;
    });
    // The results are stored (and the folder's push sent) before the job ends: all arrived first.
    expect(changes).toHaveLength(1);
    expect(changes[0].folder).toEqual({ _id: folderId, title: 'Clones', amount: 3 });
    expect(changes[0].added?.map((item) => item._id)).toEqual(done.items.map((item) => item._id));
  }, 60_000);
});
