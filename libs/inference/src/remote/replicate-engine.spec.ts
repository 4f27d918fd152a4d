import { randomBytes } from 'node:crypto';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { CapabilityUnavailableError, EngineInputError } from '../engine.port';
import { gradientImage, rejection } from '../spec-helpers';
import { FakeReplicateServer, startFakeReplicate } from './fake-replicate-server';
import { RemoteEngineError } from './remote-http';
import { isReplicateFile, ReplicateEngine, ReplicateEngineOptions } from './replicate-engine';
import { signReplicateWebhook, verifyReplicateWebhook } from './replicate-webhook';

const TOKEN = 'r8_test_token';
const SECRET = `whsec_${Buffer.from('a webhook signing key of 32 bytes!').toString('base64')}`;
const MODELS = {
  generate: 'stability-ai/sdxl:aaa111',
  inpaint: 'bbb222',
  superResolve: 'nightmareai/real-esrgan',
  faceSwap: 'someone/face-swap:ddd444',
} as const;

describe('ReplicateEngine', () => {
  let fake: FakeReplicateServer;
  let photo: Buffer;

  beforeAll(async () => {
    fake = await startFakeReplicate({
      token: TOKEN,
      webhookSecret: SECRET,
      versions: {
        aaa111: 'generate',
        bbb222: 'inpaint',
        'nightmareai/real-esrgan': 'superResolve',
        ddd444: 'faceSwap',
      },
    });
    photo = await gradientImage(160, 120);
  });
  afterAll(() => fake.close());
  beforeEach(() => {
    fake.requests.length = 0;
    fake.delayMs = 0;
    fake.hang = false;
    fake.createLatencyMs = 0;
    fake.outputOrigin = undefined;
  });

  const engineFor = (options: Partial<ReplicateEngineOptions> = {}) =>
    new ReplicateEngine({ token: TOKEN, apiUrl: fake.url, models: MODELS, pollIntervalMs: 20, ...options });

  it('generate: creates a prediction with the version, polls it, reports log progress, downloads the output', async () => {
    fake.delayMs = 150;
    const progress: number[] = [];
    const image = await engineFor().generate(
      { prompt: 'a lighthouse', width: 500, height: 300 },
      { onProgress: (f) => progress.push(f) },
    );
    const [create] = fake.requestsTo(/^POST \/v1\/predictions$/);
    expect(create.body).toEqual({
      version: 'aaa111',
      input: { prompt: 'a lighthouse', width: 504, height: 304 },
    });
    expect(create.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(fake.requestsTo(/^GET \/v1\/predictions\/\w+$/).length).toBeGreaterThan(1);
    expect(progress).toEqual([0.5, 0.99, 1]);
    expect(image).toMatchObject({ format: 'png', width: 500, height: 300 });
  });

  it('inpaint, superResolve (model route) and faceSwap send images as data URLs', async () => {
    const mask = await sharp({ create: { width: 160, height: 120, channels: 3, background: '#fff' } })
      .png()
      .toBuffer();
    const painted = await engineFor().inpaint({ image: photo, mask, prompt: 'hat' });
    expect(painted).toMatchObject({ width: 160, height: 120 });
    const upscaled = await engineFor().superResolve({ image: photo, scale: 2 });
    expect(upscaled).toMatchObject({ width: 320, height: 240 });
    const swapped = await engineFor().faceSwap({ face: photo, target: photo });
    expect(swapped).toMatchObject({ format: 'jpeg', width: 160, height: 120 });
    const bodies = fake
      .requestsTo(/^POST \/v1\/(predictions|models\/.*)$/)
      .map((r) => r.body as { input: Record<string, string> });
    expect(bodies[0].input.image).toMatch(/^data:image\/png;base64,/);
    expect(bodies[0].input.mask).toMatch(/^data:image\/png;base64,/);
    expect(fake.requestsTo(/^POST \/v1\/models\/nightmareai\/real-esrgan\/predictions$/)).toHaveLength(1);
    expect(Object.keys(bodies[2].input).sort()).toEqual(['input_image', 'swap_image']);
  });

  it('faceSwap: the target back unchanged means no face', async () => {
    fake.noFace = true;
    try {
      const error = await rejection(engineFor().faceSwap({ face: photo, target: photo }));
      expect(error).toMatchObject({ code: 'no_face_target' });
    } finally {
      fake.noFace = false;
    }
  });

  it('fetches only Replicate files: an output naming another address is refused, never fetched', async () => {
    const png = await gradientImage(64, 64);
    const hits: string[] = [];
    const elsewhere: Server = createServer((req, res) => {
      hits.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'image/png' }).end(png);
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    try {
      fake.outputOrigin = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
      const error = await rejection(engineFor().generate({ prompt: 'x', width: 64, height: 64 }));
      expect(error).toMatchObject({
        kind: 'protocol',
        message: 'The Replicate prediction output is not a Replicate file URL',
      });
      expect(hits).toEqual([]);
    } finally {
      await new Promise((resolve) => elsewhere.close(resolve));
    }
    const api = 'https://api.replicate.com';
    expect(isReplicateFile('https://replicate.delivery/pbxt/abc/out.png', api)).toBe(true);
    expect(isReplicateFile('https://pbxt.replicate.delivery/abc/out.png', api)).toBe(true);
    expect(isReplicateFile('https://api.replicate.com/v1/files/abc/download', api)).toBe(true);
    expect(isReplicateFile('http://replicate.delivery/pbxt/abc/out.png', api)).toBe(false);
    expect(isReplicateFile('https://replicate.delivery.example.com/out.png', api)).toBe(false);
    expect(isReplicateFile('https://evilreplicate.delivery/out.png', api)).toBe(false);
    expect(isReplicateFile('http://169.254.169.254/latest/meta-data/', api)).toBe(false);
  });

  it('waits out a 429 for its Retry-After, then goes on', async () => {
    fake.rateLimitNext(2, 0);
    const image = await engineFor().generate({ prompt: 'x', width: 64, height: 64 });
    expect(image.width).toBe(64);
    expect(fake.requestsTo(/^POST \/v1\/predictions$/)).toHaveLength(3);
  });

  it('a 429 that persists becomes a retryable rate_limited error (the job pipeline backs off)', async () => {
    fake.rateLimitNext(3, 0);
    const error = await rejection(
      engineFor({ rateLimitRetries: 2 }).generate({ prompt: 'x', width: 64, height: 64 }),
    );
    expect(error).toBeInstanceOf(RemoteEngineError);
    expect(error).toMatchObject({ kind: 'rate_limited', status: 429, retryAfterMs: 0 });
    expect(fake.requestsTo(/^POST \/v1\/predictions$/)).toHaveLength(3); // the first try and 2 waits
  });

  it('a 429 without Retry-After is waited out with growing back-off, not given up after a few seconds', async () => {
    // Without Retry-After the old adapter waited 1 + 2 + 4 s and gave up at the fourth 429.
    fake.rateLimitNext(5, null);
    const image = await engineFor({ rateLimitBackoffMs: 20 }).generate({
      prompt: 'x',
      width: 64,
      height: 64,
    });
    expect(image.width).toBe(64);
    expect(fake.requestsTo(/^POST \/v1\/predictions$/)).toHaveLength(6);
  });

  it("a proxy's HTML error page is reported with its status, not as unreadable JSON", async () => {
    fake.htmlErrorNext(502);
    const error = await rejection(engineFor().generate({ prompt: 'x', width: 64, height: 64 }));
    expect(error).toBeInstanceOf(RemoteEngineError);
    expect(error).toMatchObject({ kind: 'server', status: 502 });
    expect((error as Error).message).toBe(
      'Replicate POST /v1/predictions failed with HTTP 502: 502 Bad Gateway 502 Bad Gateway nginx/1.24.0',
    );
  });

  it('a 4 MB input goes through the files API (its urls.get in the input), not a data URL; deleted after', async () => {
    const side = 1160;
    const noise = await sharp(randomBytes(side * side * 3), {
      raw: { width: side, height: side, channels: 3 },
    })
      .png()
      .toBuffer();
    expect(noise.length).toBeGreaterThan(4_000_000);
    // The fake makes its output from the uploaded bytes (a URL it cannot read fails the prediction).
    const result = await engineFor().superResolve({ image: noise, scale: 2 });
    expect(result).toMatchObject({ width: side * 2, height: side * 2 });
    const [upload] = fake.requestsTo(/^POST \/v1\/files$/);
    expect(upload.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(upload.body).toEqual({ content: `(file ${noise.length} bytes)` });
    const [create] = fake.requestsTo(/^POST \/v1\/models\/.*\/predictions$/);
    const input = (create.body as { input: Record<string, unknown> }).input;
    expect(input.image).toMatch(new RegExp(`^${fake.url}/v1/files/\\w+$`));
    await waitFor(() => fake.requestsTo(/^DELETE \/v1\/files\/\w+$/).length === 1);
    expect(fake.uploads.size).toBe(0);
    // Small inputs stay inline.
    await engineFor().superResolve({ image: photo, scale: 2 });
    const small = fake.requestsTo(/^POST \/v1\/models\/.*\/predictions$/)[1].body as {
      input: Record<string, string>;
    };
    expect(small.input.image).toMatch(/^data:image\/png;base64,/);
    expect(fake.requestsTo(/^POST \/v1\/files$/)).toHaveLength(1);
  });

  it("a failed prediction: the model's error for the user; out of memory is retried", async () => {
    fake.failNext('NSFW content detected. Try running it again, or try a different prompt.');
    const refused = await rejection(engineFor().generate({ prompt: 'x', width: 64, height: 64 }));
    expect(refused).toBeInstanceOf(EngineInputError);
    expect((refused as Error).message).toBe(
      'The GPU service could not do it: NSFW content detected. Try running it again, or try a different prompt.',
    );
    fake.failNext('CUDA out of memory');
    expect(await rejection(engineFor().generate({ prompt: 'x', width: 64, height: 64 }))).toMatchObject({
      kind: 'server',
    });
  });

  it('422 input errors are permanent; an unknown model makes the tool unavailable; a bad token is auth', async () => {
    const invalid = await rejection(
      engineFor({ models: { inpaint: 'bbb222' }, inputs: { inpaint: { image: 1 } } }).inpaint({
        image: photo,
        mask: photo,
        prompt: 'x',
      }),
    );
    expect(invalid).toBeInstanceOf(EngineInputError);
    expect((invalid as Error).message).toBe(
      'The GPU service refused the request: - input: image is required',
    );
    expect(
      await rejection(
        engineFor({ models: { generate: 'nobody/nothing' } }).generate({
          prompt: 'x',
          width: 64,
          height: 64,
        }),
      ),
    ).toBeInstanceOf(CapabilityUnavailableError);
    expect(
      await rejection(engineFor({ token: 'wrong' }).generate({ prompt: 'x', width: 64, height: 64 })),
    ).toMatchObject({ kind: 'auth', status: 401 });
  });

  it('timeout and cancellation cancel the prediction on Replicate', async () => {
    fake.hang = true;
    const late = await rejection(
      engineFor({ jobTimeoutMs: 200 }).generate({ prompt: 'x', width: 64, height: 64 }),
    );
    expect(late).toMatchObject({ kind: 'timeout' });
    await waitFor(() => fake.requestsTo(/\/cancel$/).length === 1);

    const controller = new AbortController();
    const job = engineFor().generate({ prompt: 'x', width: 64, height: 64 }, { signal: controller.signal });
    await waitFor(() => fake.requestsTo(/^POST \/v1\/predictions$/).length === 2);
    controller.abort(new Error('stopped'));
    await expect(job).rejects.toThrow('stopped');
    await waitFor(() => fake.requestsTo(/\/cancel$/).length === 2);
    const id = fake.requestsTo(/\/cancel$/)[1].path.split('/')[3];
    expect(fake.prediction(id)?.status).toBe('canceled');
  });

  it("cancel reaches only this job's prediction, at once; another client's prediction runs on", async () => {
    fake.delayMs = 800;
    const created = await fetch(`${fake.url}/v1/predictions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ version: 'aaa111', input: { prompt: 'another client', width: 64, height: 64 } }),
    });
    const other = ((await created.json()) as { id: string }).id;
    const controller = new AbortController();
    const job = engineFor().generate({ prompt: 'x', width: 64, height: 64 }, { signal: controller.signal });
    await waitFor(() => fake.requestsTo(/^POST \/v1\/predictions$/).length === 2);
    // Still `starting` (Replicate's queue): cancelled there, before it ever runs.
    const started = Date.now();
    controller.abort(new Error('stopped'));
    await expect(job).rejects.toThrow('stopped');
    expect(Date.now() - started).toBeLessThan(500);
    await waitFor(() => fake.requestsTo(/\/cancel$/).length === 1);
    const ours = fake.requestsTo(/\/cancel$/)[0].path.split('/')[3];
    expect(ours).not.toBe(other);
    expect(fake.prediction(ours)?.status).toBe('canceled');
    await waitFor(() => fake.prediction(other)?.status === 'succeeded');
    expect(fake.requestsTo(/\/cancel$/)).toHaveLength(1);
  });

  it('a job cancelled while its prediction is being created still cancels that prediction', async () => {
    fake.hang = true;
    fake.createLatencyMs = 1500;
    const controller = new AbortController();
    const job = engineFor().generate({ prompt: 'x', width: 64, height: 64 }, { signal: controller.signal });
    // Replicate has the request (the prediction exists) but its answer is still on the way.
    await waitFor(() => fake.requestsTo(/^POST \/v1\/predictions$/).length === 1);
    const aborted = Date.now();
    controller.abort(new Error('stopped'));
    await expect(job).rejects.toThrow('stopped');
    // At once, not when the creation's answer comes.
    expect(Date.now() - aborted).toBeLessThan(500);
    await waitFor(() => fake.requestsTo(/\/cancel$/).length === 1);
    const id = fake.requestsTo(/\/cancel$/)[0].path.split('/')[3];
    expect(fake.prediction(id)?.status).toBe('canceled');
  });

  it('with a webhook: asks for it, and is woken by the signed delivery instead of polling', async () => {
    const waiters = new Map<string, (p: unknown) => void>();
    const receiver: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const check = verifyReplicateWebhook(
          SECRET,
          {
            id: String(req.headers['webhook-id']),
            timestamp: String(req.headers['webhook-timestamp']),
            signature: String(req.headers['webhook-signature']),
          },
          body,
        );
        res.writeHead(check.ok ? 200 : 401).end();
        const prediction = JSON.parse(body.toString()) as { id: string };
        if (check.ok) waiters.get(prediction.id)?.(prediction);
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      fake.delayMs = 100;
      const engine = engineFor({
        webhookUrl,
        webhookPollIntervalMs: 60_000,
        updates: {
          wait: (id, ms) =>
            new Promise((resolve) => {
              const timer = setTimeout(() => resolve(undefined), ms);
              waiters.set(id, (p) => (clearTimeout(timer), resolve(p)));
            }),
        },
      });
      const image = await engine.generate({ prompt: 'x', width: 64, height: 64 });
      expect(image.width).toBe(64);
      expect(fake.requestsTo(/^POST \/v1\/predictions$/)[0].body).toMatchObject({
        webhook: webhookUrl,
        webhook_events_filter: ['completed'],
      });
      expect(fake.requestsTo(/^GET \/v1\/predictions\//)).toHaveLength(0);
      expect(fake.deliveries.at(-1)?.status).toBe(200);
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  });

  it('webhook signatures: a valid one passes; a forged, altered or stale one does not', () => {
    const body = Buffer.from('{"id":"p1","status":"succeeded"}');
    const now = 1_800_000_000;
    const signature = signReplicateWebhook(SECRET, 'msg_1', now, body);
    expect(
      verifyReplicateWebhook(SECRET, { id: 'msg_1', timestamp: String(now), signature }, body, now),
    ).toEqual({ ok: true });
    expect(
      verifyReplicateWebhook(
        SECRET,
        { id: 'msg_1', timestamp: String(now), signature: `v1,${'A'.repeat(44)}` },
        body,
        now,
      ).ok,
    ).toBe(false);
    expect(
      verifyReplicateWebhook(
        SECRET,
        { id: 'msg_1', timestamp: String(now), signature },
        Buffer.from('{"id":"p1","status":"failed"}'),
        now,
      ).ok,
    ).toBe(false);
    expect(
      verifyReplicateWebhook(SECRET, { id: 'msg_1', timestamp: String(now), signature }, body, now + 301),
    ).toEqual({ ok: false, reason: 'Webhook timestamp too old or in the future' });
    expect(verifyReplicateWebhook(SECRET, { id: 'msg_1', timestamp: String(now) }, body, now).ok).toBe(false);
  });

  it('status(): the account check (unauthorised), then each model (models_missing names it)', async () => {
    await expect(engineFor().status()).resolves.toEqual({
      reachable: true,
      readiness: 'ready',
      detail: 'account studio-ops',
    });
    expect(fake.requestsTo(/^GET \/v1\/models\//).map((r) => r.path)).toEqual([
      '/v1/models/stability-ai/sdxl/versions/aaa111',
      '/v1/models/nightmareai/real-esrgan',
      '/v1/models/someone/face-swap/versions/ddd444',
    ]);
    const gone = await engineFor({ models: { ...MODELS, superResolve: 'nobody/nothing' } }).status();
    expect(gone).toEqual({
      reachable: true,
      readiness: 'models_missing',
      missing: [{ capability: 'superResolve', what: 'model nobody/nothing' }],
      detail: 'account studio-ops',
    });
    const bad = await engineFor({ token: 'nope' }).status();
    expect(bad).toMatchObject({ reachable: false, readiness: 'unauthorised' });
    expect(bad.detail).toMatch(/refused the credentials \(HTTP 401/);
    fake.rateLimitNext(1, 5);
    await expect(engineFor().status()).resolves.toEqual({
      reachable: true,
      detail: 'answers, but is rate limiting this account',
    });
  });
});

async function waitFor(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
