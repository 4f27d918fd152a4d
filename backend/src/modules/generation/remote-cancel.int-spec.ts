import { getModelToken } from '@nestjs/mongoose';
import type { Model } from 'mongoose';
import sharp from 'sharp';
import type { CancelJobResult, JobView } from '@studio/contracts';
import {
  startFakeA1111,
  startFakeComfyUI,
  startFakeReplicate,
  type FakeA1111Server,
  type FakeComfyUIServer,
  type FakeReplicateServer,
} from '@studio/inference';
import {
  balanceOf,
  eventually,
  grantCredits,
  ledgerKindsOf,
  signIn,
  uniqueName,
  type Client,
} from '../../../test/clients';
import { startTestApp, type TestApp } from '../../../test/test-app';
import { Job } from './job.schema';

/**
 * Cancel of a job that runs on a remote GPU engine, through POST /api/jobs/:id/cancel, with each
 * engine a fake speaking its real HTTP API and serving another client too: the job is refunded in
 * full, and the server stops this job's work and nobody else's (ComfyUI deletes or interrupts
 * this prompt id, Automatic1111 interrupts only while this request is the one running, Replicate
 * cancels this prediction).
 */
describe('cancel of a job running on a remote engine', () => {
  let t: TestApp;
  let comfy: FakeComfyUIServer;
  let a1111: FakeA1111Server;
  let replicate: FakeReplicateServer;
  let user: Client;
  let jobs: Model<Job>;
  let image: Buffer;
  let mask: Buffer;

  beforeAll(async () => {
    comfy = await startFakeComfyUI();
    a1111 = await startFakeA1111();
    replicate = await startFakeReplicate({ token: 'r8_token', versions: { v1sr: 'superResolve' } });
    t = await startTestApp({
      JOB_WAIT_MS: '0',
      JOB_BACKOFF_MS: '50',
      ENGINE_PROBE_CACHE_MS: '0',
      ENGINE_GENERATE: 'comfyui',
      COMFYUI_URL: comfy.url,
      ENGINE_INPAINT: 'a1111',
      A1111_URL: a1111.url,
      ENGINE_SUPER_RESOLUTION: 'replicate',
      REPLICATE_API_TOKEN: 'r8_token',
      REPLICATE_API_URL: replicate.url,
      REPLICATE_MODEL_SUPER_RESOLUTION: 'nightmareai/real-esrgan:v1sr',
    });
    user = await signIn(t, uniqueName('remotecancel'));
    await grantCredits(t, user.username, 100);
    jobs = t.app.get(getModelToken(Job.name));
    image = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#468' } })
      .png()
      .toBuffer();
    mask = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#000' } })
      .composite([
        {
          input: { create: { width: 16, height: 16, channels: 3, background: '#fff' } },
          left: 24,
          top: 24,
        },
      ])
      .png()
      .toBuffer();
  }, 60_000);

  beforeEach(() => {
    comfy.reset();
    a1111.reset();
    replicate.requests.length = 0;
    replicate.hang = false;
    replicate.delayMs = 0;
  });

  afterAll(async () => {
    await t?.close();
    await comfy?.close();
    await a1111?.close();
    await replicate?.close();
  });

  const stateOf = async (id: string) => (await jobs.findById(id).lean())!.state;
  const running = (id: string) => eventually(async () => expect(await stateOf(id)).toBe('running'));

  /** Cancels through the API: refunded in full, the balance back where it was, money moved once. */
  async function cancelRefunded(job: JobView, before: number): Promise<void> {
    const res = await user.agent.post(`/api/jobs/${job._id}/cancel`);
    expect(res.status).toBe(200);
    const result = res.body.content as CancelJobResult;
    expect(result).toMatchObject({ cancelled: 1, refunded: job.cost });
    expect(result.jobs[0]).toMatchObject({ _id: job._id, state: 'cancelled' });
    expect(await balanceOf(user)).toBe(before);
    expect(await ledgerKindsOf(user, job._id)).toEqual(['refund', 'reservation']);
  }

  const generate = async (): Promise<JobView> => {
    const res = await user.agent
      .post('/api/generateImage')
      .send({ title: 'portrait', prompt: 'woman, red hair, beach', author: user.username });
    expect(res.status).toBe(200);
    return res.body.content.job as JobView;
  };

  it('ComfyUI, our prompt running: interrupted by its prompt id; the next client then runs', async () => {
    comfy.hang = true;
    const before = await balanceOf(user);
    const job = await generate();
    await running(job._id);
    await eventually(async () => expect(comfy.runningId).toBeDefined());
    const ours = comfy.runningId!;
    const other = await comfy.queueOther({ hang: true });

    await cancelRefunded(job, before);
    await eventually(async () => expect(comfy.interrupted).toEqual([ours]));
    expect(comfy.requestsTo('/interrupt').map((r) => r.body)).toEqual([{ prompt_id: ours }]);
    await eventually(async () => expect(comfy.runningId).toBe(other));
    expect(comfy.deleted).toEqual([]);
    expect(await stateOf(job._id)).toBe('cancelled');
  }, 60_000);

  // 0.3.40: a server whose /interrupt ignores the prompt id and stops whatever runs.
  it.each([['0.3.60'], ['0.3.40']])(
    "ComfyUI %s, our prompt waiting behind another client's: deleted from the queue, theirs untouched",
    async (version) => {
      comfy.version = version;
      const other = await comfy.queueOther({ hang: true });
      const before = await balanceOf(user);
      const job = await generate();
      await running(job._id);
      await eventually(async () => expect(comfy.pendingIds).toHaveLength(1));
      const [ours] = comfy.pendingIds;

      await cancelRefunded(job, before);
      await eventually(async () => expect(comfy.deleted).toEqual([ours]));
      expect(comfy.pendingIds).toEqual([]);
      expect(comfy.runningId).toBe(other);
      expect(comfy.interrupted).toEqual([]);
      expect(comfy.requestsTo('/interrupt')).toHaveLength(0);
    },
    60_000,
  );

  it("Automatic1111 (inpaint = img2img): interrupted only while it is this job's task running", async () => {
    a1111.delayMs = 60_000;
    const before = await balanceOf(user);
    const res = await user.agent
      .post('/api/inpaintImage')
      .field('author', user.username)
      .field('prompt', 'smile')
      .field('amount', '1')
      .field('width', '64')
      .field('height', '64')
      .attach('original', image, 'photo.png')
      .attach('mask', mask, 'mask.png');
    expect(res.status).toBe(200);
    const job = res.body.content.job as JobView;
    await running(job._id);
    await eventually(async () => expect(a1111.runningLabel).toMatch(/^task\(studio-/));
    const ours = a1111.runningLabel;
    // Another client's request waits for the server's lock behind ours.
    const other = await a1111.queueOther(50);

    await cancelRefunded(job, before);
    await eventually(async () => expect(a1111.interrupted).toEqual([ours]));
    expect(a1111.requestsTo('/sdapi/v1/interrupt')).toHaveLength(1);
    // The other client got its own, whole image.
    const { images } = await other.answer;
    expect((await sharp(Buffer.from(images[0], 'base64')).metadata()).width).toBe(64);
    expect(a1111.interrupted).toEqual([ours]);
  }, 60_000);

  it('Replicate: this prediction is cancelled, nobody else’s', async () => {
    replicate.hang = true;
    const created = await fetch(`${replicate.url}/v1/predictions`, {
      method: 'POST',
      headers: { authorization: 'Bearer r8_token', 'content-type': 'application/json' },
      body: JSON.stringify({ version: 'v1sr', input: { image: 'data:image/png;base64,AAAA', scale: 2 } }),
    });
    const other = ((await created.json()) as { id: string }).id;
    const before = await balanceOf(user);
    const res = await user.agent
      .post('/api/superResolution')
      .field('author', user.username)
      .attach('original', image, 'small.png');
    expect(res.status).toBe(200);
    const job = res.body.content.job as JobView;
    await running(job._id);
    await eventually(async () => expect(replicate.requestsTo(/^POST \/v1\/predictions$/)).toHaveLength(2));

    await cancelRefunded(job, before);
    await eventually(async () => expect(replicate.requestsTo(/\/cancel$/)).toHaveLength(1));
    const ours = replicate.requestsTo(/\/cancel$/)[0].path.split('/')[3];
    expect(ours).not.toBe(other);
    expect(replicate.prediction(ours)?.status).toBe('canceled');
    expect(replicate.prediction(other)?.status).not.toBe('canceled');
  }, 60_000);
});
