import sharp from 'sharp';
import request from 'supertest';
import { JobMessages, type ToolEngineStatus } from '@studio/contracts';
import {
  signReplicateWebhook,
  startFakeComfyUI,
  startFakeReplicate,
  type FakeComfyUIServer,
  type FakeReplicateServer,
} from '@studio/inference';
import {
  balanceOf,
  downloadBytes,
  eventually,
  grantCredits,
  ledgerKindsOf,
  outcomeOf,
  signIn,
  uniqueName,
  type Client,
} from '../../../test/clients';
import { startTestApp, type TestApp } from '../../../test/test-app';
import { JobRunner } from '../generation/job-runner';

const PROMPT = { title: 'portrait', prompt: 'woman, 30 year old, red hair, beach' };
const ADMIN = { ADMIN_PASSWORD: 'admin-password-1' };

/** The user's job ledger entries by job: exactly one charge per job means reservation + capture. */
async function jobEntries(user: Client): Promise<string[][]> {
  const items = (await user.agent.get('/api/credits/history')).body.content.items as {
    kind: string;
    jobId?: string;
  }[];
  const jobs = [...new Set(items.filter((i) => i.jobId).map((i) => i.jobId!))];
  return Promise.all(jobs.map((id) => ledgerKindsOf(user, id)));
}

describe('Generate on a ComfyUI engine (fake ComfyUI over HTTP and /ws)', () => {
  let t: TestApp;
  let fake: FakeComfyUIServer;
  let user: Client;
  let admin: Client;
  const adminName = uniqueName('ops');

  beforeAll(async () => {
    fake = await startFakeComfyUI({ token: 'comfy-token' });
    t = await startTestApp({
      ...ADMIN,
      ADMIN_USERNAME: adminName,
      JOB_WAIT_MS: '30000',
      JOB_BACKOFF_MS: '50',
      ENGINE_GENERATE: 'comfyui',
      COMFYUI_URL: fake.url,
      COMFYUI_TOKEN: 'comfy-token',
      ENGINE_PROBE_CACHE_MS: '0',
    });
    admin = await signIn(t, adminName, ADMIN.ADMIN_PASSWORD);
    user = await signIn(t, uniqueName('comfy'));
    await grantCredits(t, user.username, 10);
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  it('generates through the workflow, charged exactly once', async () => {
    const res = await outcomeOf(
      user,
      await user.agent.post('/api/generateImage').send({ ...PROMPT, author: user.username }),
    );
    expect(res.status).toBe(200);
    const meta = await sharp(await downloadBytes(user, res.url!)).metadata();
    expect([meta.width, meta.height]).toEqual([512, 512]);
    const text = Object.values(fake.prompts()[0]).find((n) => n.class_type === 'CLIPTextEncode')!.inputs.text;
    expect(text).toMatch(/^adult, woman, 30 year old/);
    expect(await balanceOf(user)).toBe(9);
    expect(await jobEntries(user)).toEqual([['capture', 'reservation']]);
  });

  it('an execution error fails the job with its message and refunds it', async () => {
    fake.failExecution = { nodeId: '3', message: 'CUDA out of memory' };
    const res = await outcomeOf(user, await user.agent.post('/api/generateImage').send(PROMPT));
    expect(res.status).toBe(422);
    expect(res.error).toContain('The ComfyUI workflow failed in node 3 (KSampler)');
    await eventually(async () => expect(await balanceOf(user)).toBe(9));
    expect(fake.prompts()).toHaveLength(2); // permanent: not retried
  });

  it('admins see the engine, its GPU and queues; an unreachable server answers 503 before any charge', async () => {
    expect((await user.agent.get('/api/admin/engines')).status).toBe(403);
    const generateOf = (res: request.Response) =>
      (res.body.content as ToolEngineStatus[]).find((e) => e.tool === 'generate')!;
    // The jobs above have ended; Bull moves its own record to completed a moment after.
    const res = await eventually(async () => {
      const engines = await admin.agent.get('/api/admin/engines');
      expect(generateOf(engines).queue).toMatchObject({ active: 0 });
      return engines;
    });
    const generate = generateOf(res);
    expect(generate).toMatchObject({
      kind: 'comfyui',
      available: true,
      reachable: true,
      gpu: { name: 'cuda:0 NVIDIA GeForce RTX 4090 : cudaMallocAsync', vramFreeBytes: 21_474_836_480 },
      remoteQueue: { running: 0, pending: 0 },
      queue: { waiting: 0, active: 0 },
    });
    expect((res.body.content as ToolEngineStatus[]).find((e) => e.tool === 'clone')).toMatchObject({
      kind: 'local',
    });
    expect(generate.readiness).toBe('ready');
    const healthy = (await request(t.url).get('/api/health')).body.content;
    expect(healthy.status).toBe('ok');
    expect(healthy.engines).toContainEqual({
      tool: 'generate',
      kind: 'comfyui',
      readiness: 'ready',
      remoteQueued: 0,
    });

    // A checkpoint gone from the server: generate's row says which, /api/health says degraded
    // (without the model's name: that route is public).
    fake.missingModels.add('v1-5-pruned-emaonly.safetensors');
    const lacking = (await admin.agent.get('/api/admin/engines')).body.content as ToolEngineStatus[];
    expect(lacking.find((e) => e.tool === 'generate')).toMatchObject({
      reachable: true,
      readiness: 'models_missing',
      missing: ['CheckpointLoaderSimple ckpt_name v1-5-pruned-emaonly.safetensors'],
    });
    const degraded = (await request(t.url).get('/api/health')).body.content;
    expect(degraded.status).toBe('degraded');
    expect(degraded.engines).toContainEqual({
      tool: 'generate',
      kind: 'comfyui',
      readiness: 'models_missing',
      remoteQueued: 0,
    });
    expect(JSON.stringify(degraded)).not.toContain('v1-5-pruned');
    fake.missingModels.clear();

    await fake.close();
    const before = await balanceOf(user);
    const refused = await user.agent.post('/api/generateImage').send(PROMPT);
    expect(refused.status).toBe(503);
    expect(refused.body.content).toBe(JobMessages.engineUnreachable);
    expect(await balanceOf(user)).toBe(before);
    const down = (await admin.agent.get('/api/admin/engines')).body.content as ToolEngineStatus[];
    expect(down.find((e) => e.tool === 'generate')).toMatchObject({
      reachable: false,
      readiness: 'unreachable',
      detail: expect.stringMatching(/does not answer/),
    });
  });
});

describe('Generate on Replicate (fake predictions API; webhook back to the studio)', () => {
  let t: TestApp;
  let fake: FakeReplicateServer;
  let user: Client;
  const secret = `whsec_${Buffer.from('replicate signing key for tests!').toString('base64')}`;

  beforeAll(async () => {
    fake = await startFakeReplicate({
      token: 'r8_token',
      webhookSecret: secret,
      versions: { v1gen: 'generate' },
    });
    t = await startTestApp({
      JOB_WAIT_MS: '30000',
      JOB_BACKOFF_MS: '50',
      ENGINE_GENERATE: 'replicate',
      REPLICATE_API_TOKEN: 'r8_token',
      REPLICATE_API_URL: fake.url,
      REPLICATE_MODEL_GENERATE: 'stability-ai/sdxl:v1gen',
      REPLICATE_WEBHOOK_SECRET: secret,
      // One reachability probe for the whole file, however slow the machine (the test counts them).
      ENGINE_PROBE_CACHE_MS: '3600000',
      // The public address Replicate is told; the fake delivers to the test app instead.
      PUBLIC_URL: 'https://studio.example.com',
    });
    fake.deliverTo = t.url;
    user = await signIn(t, uniqueName('replicate'));
    await grantCredits(t, user.username, 10);
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  it('generates; the signed webhook wakes the job (no polling), charged exactly once', async () => {
    fake.delayMs = 100;
    const res = await outcomeOf(user, await user.agent.post('/api/generateImage').send(PROMPT));
    expect(res.status).toBe(200);
    const meta = await sharp(await downloadBytes(user, res.url!)).metadata();
    expect([meta.width, meta.height]).toEqual([512, 512]);
    const [create] = fake.requestsTo(/^POST \/v1\/predictions$/);
    expect(create.body).toMatchObject({
      version: 'v1gen',
      webhook: 'https://studio.example.com/api/replicate/webhook',
    });
    expect(fake.deliveries).toEqual([{ predictionId: expect.any(String), status: 200 }]);
    expect(fake.requestsTo(/^GET \/v1\/predictions\//)).toHaveLength(0);
    expect(await balanceOf(user)).toBe(9);
    expect(await jobEntries(user)).toEqual([['capture', 'reservation']]);
  });

  it("a failed prediction shows the model's error and refunds; a persistent 429 is retried, then refunded", async () => {
    fake.failNext('Prompt contains a banned word');
    const failed = await outcomeOf(user, await user.agent.post('/api/generateImage').send(PROMPT));
    expect(failed.status).toBe(422);
    expect(failed.error).toContain('The GPU service could not do it: Prompt contains a banned word');
    await eventually(async () => expect(await balanceOf(user)).toBe(9));

    fake.rateLimitNext(100, 0);
    const limited = await outcomeOf(user, await user.agent.post('/api/generateImage').send(PROMPT));
    expect(limited.status).toBe(422);
    await eventually(async () => expect(await balanceOf(user)).toBe(9));
    // three job attempts, each waiting out eight 429s (rateLimitRetries' default) before giving up
    expect(fake.requestsTo(/^POST \/v1\/predictions$/).length).toBe(2 + 3 * 9);
    fake.rateLimitNext(0);
    // Three submissions, one reachability probe: the answer is cached (ENGINE_PROBE_CACHE_MS).
    expect(fake.requestsTo(/^GET \/v1\/account$/)).toHaveLength(1);
  });

  it('the webhook route refuses bad signatures and stale deliveries', async () => {
    const body = JSON.stringify({ id: 'abc', status: 'succeeded' });
    const now = Math.floor(Date.now() / 1000);
    const post = (headers: Record<string, string>) =>
      request(t.url)
        .post('/api/replicate/webhook')
        .set('content-type', 'application/json')
        .set(headers)
        .send(body);
    expect((await post({})).status).toBe(401);
    const forged = signReplicateWebhook(
      `whsec_${Buffer.from('another key').toString('base64')}`,
      'm1',
      now,
      body,
    );
    expect(
      (await post({ 'webhook-id': 'm1', 'webhook-timestamp': String(now), 'webhook-signature': forged }))
        .status,
    ).toBe(401);
    const stale = signReplicateWebhook(secret, 'm1', now - 3600, body);
    expect(
      (
        await post({
          'webhook-id': 'm1',
          'webhook-timestamp': String(now - 3600),
          'webhook-signature': stale,
        })
      ).status,
    ).toBe(401);
    const good = signReplicateWebhook(secret, 'm1', now, body);
    expect(
      (await post({ 'webhook-id': 'm1', 'webhook-timestamp': String(now), 'webhook-signature': good }))
        .status,
    ).toBe(200);
  });
});

describe('a worker handing a running remote job back at shutdown', () => {
  let t: TestApp;
  let fake: FakeComfyUIServer;

  beforeAll(async () => {
    fake = await startFakeComfyUI();
    t = await startTestApp({
      JOB_WAIT_MS: '0',
      SHUTDOWN_GRACE_MS: '50',
      ENGINE_GENERATE: 'comfyui',
      COMFYUI_URL: fake.url,
      ENGINE_PROBE_CACHE_MS: '0',
    });
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  it('interrupts its prompt on the server, so the worker that takes it over does not run a second', async () => {
    fake.hang = true;
    const user = await signIn(t, uniqueName('handback'));
    await grantCredits(t, user.username, 10);
    const res = await user.agent.post('/api/generateImage').send({ ...PROMPT, author: user.username });
    expect(res.status).toBe(200);
    await eventually(async () => expect(fake.prompts()).toHaveLength(1));
    await t.app.get(JobRunner).beforeApplicationShutdown();
    await eventually(async () => expect(fake.interrupted).toHaveLength(1));
  });
});
