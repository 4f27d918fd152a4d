import sharp from 'sharp';
import request from 'supertest';
import type { Socket } from 'socket.io-client';
import {
  JobMessages,
  JobSocketEvents,
  Messages,
  SocketEvents,
  type JobSocketPayloads,
  type JobView,
} from '@studio/contracts';
import { FaceAnalyzer, type InferenceEngine } from '@studio/inference';
import {
  balanceOf,
  connectSocket,
  downloadBytes,
  eventually,
  ledgerKindsOf,
  grantCredits,
  makeFolder,
  signIn,
  uniqueName,
  type Client,
} from '../../../test/clients';
import { fixture } from '../../../test/fixtures';
import { gatedSuperResolution } from '../../../test/gated-engine';
import { startTestApp, type TestApp } from '../../../test/test-app';
import { AuditService } from '../audit/audit.service';
import { EngineRegistry } from '../engines';

/** Mean squared error → PSNR in dB between two raw RGB buffers of the same size. */
function psnr(a: Buffer, b: Buffer): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] - b[i]) ** 2;
  return 10 * Math.log10((255 * 255) / (sum / a.length));
}

const rgb = (image: Buffer | sharp.Sharp) =>
  (Buffer.isBuffer(image) ? sharp(image) : image).removeAlpha().raw().toBuffer();

describe('job pipeline with the local engine (real queue, Redis, database, models)', () => {
  let t: TestApp;
  let alice: Client;
  let socket: Socket;
  const events: { name: string; payload: unknown }[] = [];

  const jobEvents = (jobId: string) =>
    events.filter((e) => {
      const p = e.payload as { job?: JobView; jobId?: string };
      return p.job?._id === jobId || p.jobId === jobId;
    });

  beforeAll(async () => {
    t = await startTestApp({ JOB_WAIT_MS: '60000', JOB_BACKOFF_MS: '100' });
    alice = await signIn(t, uniqueName('alice'));
    await grantCredits(t, alice.username, 30);
    socket = await connectSocket(t, alice.cookie);
    for (const name of [...Object.values(JobSocketEvents), SocketEvents.balanceChanged]) {
      socket.on(name, (payload: unknown) => events.push({ name, payload }));
    }
  }, 120_000);

  afterAll(async () => {
    socket?.close();
    await t?.close();
  });

  it('clones an image: copies within 1024 px, charged once, pushed and logged', async () => {
    const before = await balanceOf(alice);
    const res = await alice.agent
      .post('/api/generateNoise')
      .field('author', alice.username)
      .field('amount', '3')
      .attach('original', fixture('cgi-model-1.jpg'), 'model.jpg');
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('success');
    const job = res.body.content.job as JobView;
    expect(job).toMatchObject({ tool: 'clone', state: 'succeeded', cost: 3, progress: 100 });
    expect(job.items).toHaveLength(3);
    expect(res.body.content.url).toBe(job.items[0].url);

    const original = await rgb(sharp(fixture('cgi-model-1.jpg')).resize(1024, 576));
    const copies = await Promise.all(job.items.map((item) => downloadBytes(alice, item.url)));
    for (const copy of copies) {
      const meta = await sharp(copy).metadata();
      expect([meta.width, meta.height]).toEqual([1024, 576]);
      const pixels = await rgb(copy);
      expect(pixels.equals(original)).toBe(false);
      expect(psnr(pixels, original)).toBeGreaterThan(25); // faint noise, not a different picture
    }
    expect((await rgb(copies[0])).equals(await rgb(copies[1]))).toBe(false);

    expect(await balanceOf(alice)).toBe(before - 3);
    // The results are in the 'Clones' folder that the request made for them.
    const contents = await alice.agent.get(`/api/getBulkInpaints/${job.folderId}`);
    expect(contents.body.content.inpaints.map((i: { _id: string }) => i._id).sort()).toEqual(
      job.items.map((i) => i._id).sort(),
    );
    await eventually(async () => {
      const names = jobEvents(job._id).map((e) => e.name);
      expect(names).toEqual(expect.arrayContaining(['job.queued', 'job.completed']));
    });
    const queued = jobEvents(job._id).find((e) => e.name === 'job.queued')!
      .payload as JobSocketPayloads['job.queued'];
    expect(queued.position).toBeGreaterThanOrEqual(0);
    expect(
      events.some((e) => e.name === 'balance.changed' && (e.payload as { delta: number }).delta === -3),
    ).toBe(true);
    // Reserved and captured exactly once for this job.
    expect(await ledgerKindsOf(alice, job._id)).toEqual(['capture', 'reservation']);
    await eventually(async () => {
      const log = await t.app.get(AuditService).latest(50);
      expect(log.some((e) => e.message === 'Spent 3 credits.' && e.author?.username === alice.username)).toBe(
        true,
      );
    });
  }, 120_000);

  it("accepts the spec's Clone0..CloneN-1 files, one copy each", async () => {
    const small = await sharp(fixture('ai-face.jpg')).resize(64, 64).png().toBuffer();
    const res = await alice.agent
      .post('/api/generateNoise')
      .field('author', alice.username)
      .attach('Clone0', small, 'a.png')
      .attach('Clone1', small, 'b.png');
    expect(res.status).toBe(200);
    expect(res.body.content.job).toMatchObject({ cost: 2, state: 'succeeded' });
    expect(res.body.content.job.items).toHaveLength(2);
  }, 60_000);

  it('super-resolves an image sent as a data URL: 2x, sharper than bicubic', async () => {
    const original = await sharp(fixture('ai-face.jpg')).png().toBuffer(); // 256x256
    const small = await sharp(original).resize(128, 128, { kernel: 'lanczos3' }).png().toBuffer();
    const before = await balanceOf(alice);
    const res = await alice.agent
      .post('/api/superResolution')
      .send({ original: `data:image/png;base64,${small.toString('base64')}`, author: alice.username });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('success');
    const job = res.body.content.job as JobView;
    expect(job).toMatchObject({ tool: 'superResolution', cost: 2 });
    const upscaled = await downloadBytes(alice, res.body.content.url);
    const meta = await sharp(upscaled).metadata();
    expect([meta.width, meta.height]).toEqual([256, 256]);
    const truth = await rgb(original);
    const bicubic = await rgb(sharp(small).resize(256, 256, { kernel: 'cubic' }));
    const model = psnr(await rgb(upscaled), truth);
    const baseline = psnr(bicubic, truth);
    console.log(`super resolution PSNR: ESRGAN ${model.toFixed(2)} dB, bicubic ${baseline.toFixed(2)} dB`);
    expect(model).toBeGreaterThan(baseline);
    expect(await balanceOf(alice)).toBe(before - 2);
    // Progress was pushed while the tiles ran.
    const progress = jobEvents(job._id)
      .filter((e) => e.name === 'job.progress')
      .map((e) => (e.payload as JobSocketPayloads['job.progress']).progress);
    console.log(`super resolution progress pushed: ${progress.join(', ')}`);
    expect(progress.length).toBeGreaterThan(0);
  }, 120_000);

  it('super-resolves 4x when asked, priced per started output megapixel; refuses other factors', async () => {
    // 260x260 at 4x is 1040x1040 = 1.03 megapixels: two units of 2 credits
    const image = await sharp(fixture('ai-face.jpg')).resize(260, 260).png().toBuffer();
    const dataUrl = `data:image/png;base64,${image.toString('base64')}`;
    const before = await balanceOf(alice);
    const refused = await alice.agent
      .post('/api/superResolution')
      .send({ original: dataUrl, author: alice.username, scale: 3 });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('scale must be one of 2, 4');
    expect(await balanceOf(alice)).toBe(before);

    const res = await alice.agent
      .post('/api/superResolution')
      .send({ original: dataUrl, author: alice.username, scale: 4 });
    expect(res.status).toBe(200);
    const job = res.body.content.job as JobView;
    expect(job).toMatchObject({ tool: 'superResolution', cost: 4 });
    const done = await eventually(async () => {
      const completed = jobEvents(job._id).find((e) => e.name === JobSocketEvents.completed);
      expect(completed).toBeDefined();
      return completed!.payload as JobSocketPayloads['job.completed'];
    }, 60_000);
    const upscaled = await downloadBytes(alice, done.job.items[0].url);
    expect(await sharp(upscaled).metadata()).toMatchObject({ width: 1040, height: 1040 });
    expect(await balanceOf(alice)).toBe(before - 4);
  }, 120_000);

  it('refuses a face swap whose faces are turned too differently before any charge', async () => {
    const folderId = await makeFolder(alice, 'Refused swaps');
    const before = await balanceOf(alice);
    const res = await alice.agent
      .post('/api/faceSwap')
      .field('author', alice.username)
      .field('folder', folderId)
      .field('consent', 'true')
      // ai-upper turned the other way (about 86 degrees apart)
      .attach('Swap0', await sharp(fixture('ai-upper.jpg')).flop().png().toBuffer(), 'face.png')
      .attach('Swap1', fixture('ai-upper.jpg'), 'target.jpg');
    // The free check runs again on the request: refused (400), no job, nothing reserved.
    expect(res.status).toBe(400);
    expect(res.body.content).toMatch(/^Face 1 of the target is turned \d+° differently/);
    expect(await balanceOf(alice)).toBe(before);
  }, 60_000);

  it('swaps a face: queued at once, completed on the socket, the face is the source face', async () => {
    const folderId = await makeFolder(alice, 'Swaps');
    const before = await balanceOf(alice);
    const res = await alice.agent
      .post('/api/faceSwap')
      .field('author', alice.username)
      .field('folder', folderId)
      .field('consent', 'true')
      .attach('Swap0', fixture('ai-face.jpg'), 'face.jpg')
      .attach('Swap1', fixture('cgi-model-3.jpg'), 'target.jpg');
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('processing');
    // This job's push, not the next one: the previous test's completion may still be on its way.
    const { job } = await eventually(async () => {
      const done = jobEvents(res.body.content.job._id).find((e) => e.name === JobSocketEvents.completed);
      expect(done).toBeDefined();
      return done!.payload as JobSocketPayloads['job.completed'];
    }, 90_000);
    expect(job).toMatchObject({ _id: res.body.content.job._id, state: 'succeeded', folderId, cost: 1 });
    const swapped = await downloadBytes(alice, job.items[0].url);
    // The target's full size (it is no longer fitted within 1024 px).
    const target = await sharp(fixture('cgi-model-3.jpg')).png().toBuffer();
    const meta = await sharp(swapped).metadata();
    const targetMeta = await sharp(target).metadata();
    expect([meta.width, meta.height]).toEqual([targetMeta.width, targetMeta.height]);
    expect(JSON.stringify(meta.exif ? meta.exif.toString('latin1') : '') + String(meta.xmp ?? '')).toMatch(
      /AI-generated/,
    );

    const faces = new FaceAnalyzer();
    const source = await faces.embedding(fixture('ai-face.jpg'));
    const original = await faces.embedding(target);
    const result = await faces.embedding(swapped);
    const toSource = faces.distance(result, source);
    const toTarget = faces.distance(result, original);
    console.log(
      `face swap embedding distance: to source ${toSource.toFixed(2)}, to target ${toTarget.toFixed(2)}`,
    );
    expect(toSource).toBeLessThan(toTarget);

    expect(await balanceOf(alice)).toBe(before - 1);
    const contents = await alice.agent.get(`/api/getBulkInpaints/${folderId}`);
    expect(contents.body.content.inpaints).toHaveLength(1);
    await eventually(async () => {
      const log = await t.app.get(AuditService).latest(50);
      expect(log.some((e) => e.category === 'FaceSwap' && e.message === 'Swapped 1 image.')).toBe(true);
    });
  }, 150_000);

  it('refuses a swap without a face before any charge and says why', async () => {
    const folderId = await makeFolder(alice, 'No faces');
    const before = await balanceOf(alice);
    const blank = await sharp({
      create: { width: 300, height: 300, channels: 3, background: { r: 90, g: 140, b: 200 } },
    })
      .png()
      .toBuffer();
    const res = await alice.agent
      .post('/api/faceSwap')
      .field('author', alice.username)
      .field('folder', folderId)
      .field('consent', 'true')
      .attach('Swap0', blank, 'face.png')
      .attach('Swap1', fixture('cgi-model-3.jpg'), 'target.jpg');
    expect(res.status).toBe(400);
    expect(res.body.content).toBe(JobMessages.noFaceSource);
    expect(await balanceOf(alice)).toBe(before);
  }, 90_000);

  it('retries a failing engine, then fails the job and refunds it once', async () => {
    let calls = 0;
    const registry = t.app.get(EngineRegistry);
    const real = registry.engineFor('superResolution')!;
    const broken: InferenceEngine = Object.assign(Object.create(real) as InferenceEngine, {
      superResolve: async () => {
        calls += 1;
        throw new Error('GPU on fire');
      },
    });
    registry.override('superResolution', broken);
    try {
      const before = await balanceOf(alice);
      const small = await sharp(fixture('ai-face.jpg')).resize(32, 32).png().toBuffer();
      const res = await alice.agent
        .post('/api/superResolution')
        .field('author', alice.username)
        .attach('original', small, 'small.png');
      expect(res.status).toBe(422);
      expect(res.body.content).toBe(JobMessages.failed);
      expect(calls).toBe(t.config.JOB_ATTEMPTS);
      const jobId = (await alice.agent.get('/api/jobs')).body.content[0]._id as string;
      // The refusal names the ended job (JobEndedRefusal).
      expect(res.body.job).toMatchObject({ _id: jobId, state: 'failed' });
      await eventually(async () => {
        expect(jobEvents(jobId).map((e) => e.name)).toContain('job.failed');
        expect(await balanceOf(alice)).toBe(before);
      });
      const refunds = (await alice.agent.get('/api/credits/history')).body.content.items.filter(
        (h: { kind: string; amount: number }) => h.kind === 'refund' && h.amount === 2,
      );
      expect(refunds.length).toBeGreaterThanOrEqual(1);
      const job = (await alice.agent.get(`/api/jobs/${jobId}`)).body.content as JobView;
      expect(job).toMatchObject({ state: 'failed', refunded: 2 });
    } finally {
      registry.override('superResolution', null);
    }
  }, 60_000);

  it('answers a request whose job is cancelled while it waits with 422 and the cancelled job, refunded', async () => {
    const registry = t.app.get(EngineRegistry);
    const gated = gatedSuperResolution(registry.engineFor('clone')!);
    registry.override('superResolution', gated.engine);
    try {
      const before = await balanceOf(alice);
      const small = await sharp({ create: { width: 24, height: 24, channels: 3, background: '#357' } })
        .png()
        .toBuffer();
      const answer = alice.agent
        .post('/api/superResolution')
        .field('author', alice.username)
        .attach('original', small, 'small.png')
        .then((res) => res);
      const run = await gated.nextRun();
      const jobId = (await alice.agent.get('/api/jobs')).body.content[0]._id as string;
      const cancel = await alice.agent.post(`/api/jobs/${jobId}/cancel`);
      expect(cancel.status).toBe(200);
      const res = await answer;
      expect(res.status).toBe(422);
      // Whichever of the two answers the tab hears first, it learns the job was cancelled, refunded.
      expect(res.body.job).toMatchObject({
        _id: jobId,
        state: 'cancelled',
        refunded: cancel.body.content.refunded,
      });
      expect(await balanceOf(alice)).toBe(before);
      // The run that was stopped ends; its result is not taken (the refund won).
      await run.finish();
      await eventually(async () => expect(jobEvents(jobId).map((e) => e.name)).toContain('job.cancelled'));
      expect(await balanceOf(alice)).toBe(before);
    } finally {
      registry.override('superResolution', null);
    }
  }, 60_000);

  describe('refuses bad requests before anything is queued or charged', () => {
    let bob: Client;
    let folderId: string;
    const face = () => fixture('ai-face.jpg');

    beforeAll(async () => {
      bob = await signIn(t, uniqueName('bob'));
      await grantCredits(t, bob.username, 2);
      folderId = await makeFolder(bob, 'Bob');
    });

    const swap = (client: Client, fields: Record<string, string>, files: [string, Buffer][]) => {
      let req = client.agent.post('/api/faceSwap');
      for (const [k, v] of Object.entries(fields)) req = req.field(k, v);
      for (const [k, v] of files) req = req.attach(k, v, `${k}.jpg`);
      return req;
    };

    afterEach(async () => {
      expect(await balanceOf(bob)).toBe(2);
      expect((await bob.agent.get('/api/jobs')).body.content).toEqual([]);
    });

    it.each([
      ['no consent', { folder: 'F' }, JobMessages.consentRequired],
      ['consent false', { folder: 'F', consent: 'false' }, JobMessages.consentRequired],
      ['no folder', { consent: 'true' }, Messages.selectFolder],
    ])('face swap with %s: 400', async (_name, fields, message) => {
      const resolved = Object.fromEntries(
        Object.entries(fields).map(([k, v]) => [k, v === 'F' ? folderId : v]),
      ) as Record<string, string>;
      const res = await swap(bob, resolved, [
        ['Swap0', face()],
        ['Swap1', face()],
      ]);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: 'error', content: message });
    });

    it('face swap with one image missing: 400', async () => {
      const res = await swap(bob, { folder: folderId, consent: 'true' }, [['Swap0', face()]]);
      expect(res.status).toBe(400);
      expect(res.body.content).toBe(JobMessages.faceImageRequired);
    });

    it("face swap into another user's folder: 404", async () => {
      const other = await makeFolder(alice, 'Not yours');
      const res = await swap(bob, { folder: other, consent: 'true' }, [
        ['Swap0', face()],
        ['Swap1', face()],
      ]);
      expect(res.status).toBe(404);
    });

    it('a file that is not an image (whatever its name): 400', async () => {
      const res = await bob.agent
        .post('/api/generateNoise')
        .field('amount', '1')
        .attach('original', Buffer.from('<?php echo "hi"; ?>'), 'photo.png');
      expect(res.status).toBe(400);
      expect(res.body.content).toBe(JobMessages.badImage);
    });

    it('a decompression bomb (huge pixel count in a tiny file): refused', async () => {
      const bomb = await sharp({
        create: { width: 10_000, height: 10_000, channels: 3, background: { r: 0, g: 0, b: 0 } },
      })
        .png({ compressionLevel: 9 })
        .toBuffer();
      expect(bomb.length).toBeLessThan(1_000_000);
      const res = await bob.agent
        .post('/api/generateNoise')
        .field('amount', '1')
        .attach('original', bomb, 'b.png');
      expect(res.status).toBe(413);
    });

    it.each(['0', '101', '2.5', 'lots'])('clone amount %s: 400', async (amount) => {
      const res = await bob.agent
        .post('/api/generateNoise')
        .field('amount', amount)
        .attach('original', face(), 'f.jpg');
      expect(res.status).toBe(400);
    });

    it("more clones than the balance: 402 'Not enough credits!'", async () => {
      const res = await bob.agent
        .post('/api/generateNoise')
        .field('author', bob.username)
        .field('amount', '3')
        .attach('original', face(), 'f.jpg');
      expect(res.status).toBe(402);
      expect(res.body).toEqual({ message: 'error', content: Messages.notEnoughCredits });
    });

    it("another user's name as author: 403", async () => {
      const res = await bob.agent
        .post('/api/generateNoise')
        .field('author', alice.username)
        .field('amount', '1')
        .attach('original', face(), 'f.jpg');
      expect(res.status).toBe(403);
    });

    it('not signed in: 401', async () => {
      const res = await request(t.url).post('/api/generateNoise').attach('original', face(), 'f.jpg');
      expect(res.status).toBe(401);
    });

    it("another user's job: 404", async () => {
      const aliceJob = (await alice.agent.get('/api/jobs')).body.content[0]._id as string;
      expect((await bob.agent.get(`/api/jobs/${aliceJob}`)).status).toBe(404);
      expect((await bob.agent.get('/api/jobs/not-an-id')).status).toBe(404);
    });
  });
});
