import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoNetworkError } from 'mongodb';
import sharp from 'sharp';
import {
  JobMessages,
  Messages,
  PromptMessages,
  videoSwapCost,
  type FolderContents,
  type JobView,
} from '@studio/contracts';
import { startFakeA1111, type FakeA1111Server } from '@studio/inference';
import {
  balanceOf,
  downloadBytes,
  eventually,
  grantCredits,
  makeFolder,
  signIn,
  uniqueName,
  type Client,
  outcomeOf,
} from '../../../test/clients';
import { fixture, rectangleMask, writeTestVideo } from '../../../test/fixtures';
import { startTestApp, type TestApp } from '../../../test/test-app';
import { QueuePositions } from './queue-positions';

describe('Magic Brush, Generate and video face swap with the local engine', () => {
  let t: TestApp;
  let user: Client;
  const adminName = uniqueName('chief');

  beforeAll(async () => {
    t = await startTestApp({
      JOB_WAIT_MS: '60000',
      ADMIN_USERNAME: adminName,
      ADMIN_PASSWORD: 'admin-password-1',
    });
    user = await signIn(t, uniqueName('painter'));
    await grantCredits(t, user.username, 40);
  }, 120_000);

  afterAll(async () => {
    await t?.close();
  });

  it('inpaints one image: masked area repainted, every other pixel identical', async () => {
    const image = await sharp(fixture('ai-face.jpg')).png().toBuffer(); // 256x256
    const box = { left: 100, top: 150, w: 60, h: 40 };
    const mask = await rectangleMask(256, 256, box);
    const before = await balanceOf(user);
    const res = await user.agent
      .post('/api/inpaintImage')
      .field('author', user.username)
      .field('prompt', 'smile')
      .field('amount', '1')
      .field('width', '256')
      .field('height', '256')
      .attach('original', image, 'face.png')
      .attach('mask', mask, 'mask.png');
    const done = await outcomeOf(user, res);
    expect(done.status).toBe(200);
    const out = await downloadBytes(user, done.url!);
    const [a, b] = await Promise.all([
      sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true }),
      sharp(out).removeAlpha().raw().toBuffer({ resolveWithObject: true }),
    ]);
    expect([b.info.width, b.info.height]).toEqual([256, 256]);
    let changedInside = 0;
    let changedOutside = 0;
    for (let y = 0; y < 256; y++) {
      for (let x = 0; x < 256; x++) {
        const inside = x >= box.left && x < box.left + box.w && y >= box.top && y < box.top + box.h;
        const i = (y * 256 + x) * 3;
        const same =
          a.data[i] === b.data[i] && a.data[i + 1] === b.data[i + 1] && a.data[i + 2] === b.data[i + 2];
        if (!same && inside) changedInside += 1;
        if (!same && !inside) changedOutside += 1;
      }
    }
    expect(changedOutside).toBe(0);
    expect(changedInside).toBeGreaterThan(box.w * box.h * 0.5);
    expect(await balanceOf(user)).toBe(before - 1);
  }, 120_000);

  it('runs a bulk batch: amount × images jobs, status lines, then the batch name', async () => {
    const folderId = await makeFolder(user, 'Bulk');
    const image = await sharp(fixture('ai-face.jpg')).resize(128, 128).png().toBuffer();
    const extra = await sharp(fixture('ai-upper.jpg')).resize(160, 168).png().toBuffer();
    const mask = await rectangleMask(128, 128, { left: 40, top: 60, w: 30, h: 20 });
    const before = await balanceOf(user);
    const res = await user.agent
      .post('/api/bulkInpaintImage')
      .field('author', user.username)
      .field('prompt', 'freckles')
      .field('amount', '2')
      .field('folder', folderId)
      .field('inpaintName', 'Freckles')
      .attach('original', image, 'a.png')
      .attach('mask', mask, 'mask.png')
      .attach('files', extra, 'b.png');
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('processing');
    expect(res.body.content.jobs).toHaveLength(4);
    expect(res.body.content.batch).toMatchObject({ amount: 4, title: 'STATUS: Freckles: 0 of 4 done' });
    expect(await balanceOf(user)).toBe(before - 4);
    const contents = await eventually(async () => {
      const body = (await user.agent.get(`/api/getBulkInpaints/${folderId}`)).body.content as FolderContents;
      expect(body.inpaint).toEqual([expect.objectContaining({ title: 'Freckles', amount: 4 })]);
      return body;
    }, 60_000);
    expect(contents.inpaints).toHaveLength(4);
  }, 120_000);

  it('a batch none of whose jobs could be queued (the database lost half way) leaves no entry and no charge', async () => {
    const folderId = await makeFolder(user, 'Undone');
    const image = await sharp(fixture('ai-face.jpg')).resize(64, 64).png().toBuffer();
    const mask = await rectangleMask(64, 64, { left: 10, top: 10, w: 10, h: 10 });
    const before = await balanceOf(user);
    const positions = t.app.get(QueuePositions, { strict: false });
    const lost = jest
      .spyOn(positions, 'enqueue')
      .mockRejectedValueOnce(new MongoNetworkError('connection 9 to 127.0.0.1:27017 closed'));
    try {
      const res = await user.agent
        .post('/api/bulkInpaintImage')
        .field('author', user.username)
        .field('prompt', 'freckles')
        .field('amount', '2')
        .field('folder', folderId)
        .attach('original', image, 'a.png')
        .attach('mask', mask, 'mask.png');
      expect({ status: res.status, content: res.body.content }).toEqual({
        status: 503,
        content: Messages.briefOutage,
      });
      expect(lost).toHaveBeenCalledTimes(1);
    } finally {
      lost.mockRestore();
    }
    expect(await balanceOf(user)).toBe(before);
    const contents = (await user.agent.get(`/api/getBulkInpaints/${folderId}`)).body
      .content as FolderContents;
    expect(contents.inpaint).toEqual([]);
  }, 60_000);

  it('checks bulk credits per file before anything is queued', async () => {
    const poor = await signIn(t, uniqueName('poor'));
    await grantCredits(t, poor.username, 3);
    const folderId = await makeFolder(poor, 'Too many');
    const image = await sharp(fixture('ai-face.jpg')).resize(64, 64).png().toBuffer();
    const mask = await rectangleMask(64, 64, { left: 10, top: 10, w: 10, h: 10 });
    const res = await poor.agent
      .post('/api/bulkInpaintImage')
      .field('prompt', 'x')
      .field('amount', '2')
      .field('folder', folderId)
      .attach('original', image, 'a.png')
      .attach('mask', mask, 'm.png')
      .attach('files', image, 'b.png');
    expect(res.status).toBe(402);
    expect(res.body.content).toBe(Messages.notEnoughCredits);
    expect(await balanceOf(poor)).toBe(3);
    expect((await poor.agent.get('/api/jobs')).body.content).toEqual([]);
    const contents = (await poor.agent.get(`/api/getBulkInpaints/${folderId}`)).body
      .content as FolderContents;
    expect(contents.inpaint).toEqual([]);
    // Without a folder: refused by the rule of the spec.
    const noFolder = await poor.agent
      .post('/api/bulkInpaintImage')
      .field('amount', '1')
      .attach('original', image, 'a.png')
      .attach('mask', mask, 'm.png');
    expect(noFolder.status).toBe(400);
    expect(noFolder.body.content).toBe(Messages.selectFolder);
  }, 60_000);

  it('refuses image generation without a remote engine, before charging', async () => {
    const before = await balanceOf(user);
    const res = await user.agent
      .post('/api/generateImage')
      .send({ title: 'portrait', prompt: 'adult woman, 20 year old, red hair', author: user.username });
    expect(res.status).toBe(503);
    expect(res.body.content).toBe(PromptMessages.notConfigured);
    expect(await balanceOf(user)).toBe(before);
  });

  it.each(['a teen girl on the beach', '15 year old, red hair', 'schoolgirl outfit'])(
    'refuses a prompt pointing at a minor: %p',
    async (prompt) => {
      const res = await user.agent.post('/api/generateImage').send({ title: 't', prompt });
      expect(res.status).toBe(400);
      expect(res.body.content).toBe(PromptMessages.refused);
      const inpaint = await user.agent
        .post('/api/inpaintImage')
        .field('prompt', prompt)
        .attach('original', fixture('ai-face.jpg'), 'a.jpg')
        .attach('mask', fixture('ai-face.jpg'), 'm.jpg');
      expect(inpaint.status).toBe(400);
    },
  );

  describe('video face swap', () => {
    let dir: string;
    let admin: Client;
    let folderId: string;

    /** A test video from a test face: slow zoom so frames differ, a 440 Hz tone as audio. */
    const makeVideo = (name: string, seconds: number, size = 240, fps = 10) =>
      writeTestVideo(join(dir, name), seconds, size, fps);
    const probe = (path: string) =>
      JSON.parse(
        execFileSync('ffprobe', [
          '-v',
          'error',
          '-show_streams',
          '-show_format',
          '-of',
          'json',
          path,
        ]).toString(),
      ) as { format: { duration: string }; streams: { codec_type: string; nb_frames?: string }[] };

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'video-test-'));
      admin = await signIn(t, adminName, 'admin-password-1');
      folderId = await makeFolder(user, 'Videos');
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    const swap = (video: Buffer, length: string) =>
      user.agent
        .post('/api/faceSwapVideo')
        .field('author', user.username)
        .field('folder', folderId)
        .field('consent', 'true')
        .field('length', length)
        .attach('SwapVideo0', video, 'clip.mp4')
        .attach('SwapVideo1', fixture('ai-face.jpg'), 'face.jpg');

    it('is refused while the feature flag is off', async () => {
      const res = await swap(readFileSync(makeVideo('off.mp4', 1, 64)), '1');
      expect(res.status).toBe(403);
      expect(res.body.content).toBe(JobMessages.videoSwapOff);
    });

    it('swaps a 3-second video: frames, duration and audio kept; priced by the measured length', async () => {
      expect((await admin.agent.put('/api/admin/flags').send({ videoFaceSwap: true })).status).toBe(200);
      const input = makeVideo('three.mp4', 3);
      const measured = Number(probe(input).format.duration);
      const before = await balanceOf(user);
      // The client claims 1 second; the server measures about 3.
      const res = await swap(readFileSync(input), '1');
      expect(res.status).toBe(200);
      expect(res.body.message).toBe('processing');
      const jobId = (res.body.content.job as JobView)._id;
      expect(res.body.content.job.cost).toBe(videoSwapCost(measured));
      expect(await balanceOf(user)).toBe(before - videoSwapCost(measured));
      const done = await eventually(async () => {
        const job = (await user.agent.get(`/api/jobs/${jobId}`)).body.content as JobView;
        expect(job.state).toBe('succeeded');
        return job;
      }, 240_000);
      expect(done.items[0]).toMatchObject({ kind: 'video' });
      expect(done.items[0].url).toMatch(/\.mp4$/);
      const outPath = join(dir, 'out.mp4');
      writeFileSync(outPath, await downloadBytes(user, done.items[0].url));
      const [inInfo, outInfo] = [probe(input), probe(outPath)];
      expect(Math.abs(Number(outInfo.format.duration) - Number(inInfo.format.duration))).toBeLessThan(0.25);
      const frames = (info: typeof inInfo) =>
        Number(info.streams.find((s) => s.codec_type === 'video')!.nb_frames);
      expect(frames(outInfo)).toBe(frames(inInfo));
      expect(outInfo.streams.some((s) => s.codec_type === 'audio')).toBe(true);
    }, 300_000);

    it('refuses a 31-second video whatever length the client claims', async () => {
      const before = await balanceOf(user);
      const res = await swap(readFileSync(makeVideo('long.mp4', 31, 64, 2)), '10');
      expect(res.status).toBe(400);
      expect(res.body.content).toBe(JobMessages.videoTooLong);
      expect(await balanceOf(user)).toBe(before);
    }, 60_000);
  });
});

describe('generation through a remote Automatic1111-compatible engine (fake server)', () => {
  let t: TestApp;
  let fake: FakeA1111Server;
  let user: Client;

  beforeAll(async () => {
    fake = await startFakeA1111({ auth: { username: 'gpu', password: 'secret-pass' } });
    t = await startTestApp({
      JOB_WAIT_MS: '30000',
      JOB_BACKOFF_MS: '100',
      ENGINE_GENERATE: 'a1111',
      ENGINE_SUPER_RESOLUTION: 'a1111',
      A1111_URL: fake.url,
      A1111_USERNAME: 'gpu',
      A1111_PASSWORD: 'secret-pass',
    });
    user = await signIn(t, uniqueName('gpuuser'));
    await grantCredits(t, user.username, 10);
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  it('generates a 512 px image through txt2img, with adult age stated, charged once', async () => {
    const res = await user.agent
      .post('/api/generateImage')
      .send({ title: 'portrait', prompt: 'woman, 20 year old, red hair, beach', author: user.username });
    const done = await outcomeOf(user, res);
    expect(done.status).toBe(200);
    const image = await downloadBytes(user, done.url!);
    const meta = await sharp(image).metadata();
    expect([meta.width, meta.height]).toEqual([512, 512]);
    const call = fake.requests.find((r) => r.path === '/sdapi/v1/txt2img')!;
    expect(call).toBeDefined();
    expect((call.body as { prompt: string }).prompt).toMatch(/^adult, woman, 20 year old/);
    expect(call.headers.authorization).toBe(`Basic ${Buffer.from('gpu:secret-pass').toString('base64')}`);
    expect(await balanceOf(user)).toBe(9);
  }, 60_000);

  it('upscales through extra-single-image when super resolution is remote', async () => {
    const small = await sharp(fixture('ai-face.jpg')).resize(100, 100).png().toBuffer();
    const done = await outcomeOf(
      user,
      await user.agent.post('/api/superResolution').attach('original', small, 's.png'),
    );
    expect(done.status).toBe(200);
    const meta = await sharp(await downloadBytes(user, done.url!)).metadata();
    expect([meta.width, meta.height]).toEqual([200, 200]);
    const call = fake.requests.find((r) => r.path === '/sdapi/v1/extra-single-image')!;
    expect((call.body as { upscaling_resize: number }).upscaling_resize).toBe(2);
  }, 60_000);

  it('retries a GPU server error and refunds when it keeps failing', async () => {
    fake.failNext(500, { error: 'CUDA out of memory' });
    fake.failNext(500, { error: 'CUDA out of memory' });
    fake.failNext(500, { error: 'CUDA out of memory' });
    const before = await balanceOf(user);
    const res = await user.agent.post('/api/generateImage').send({ title: 't', prompt: 'adult man, beard' });
    expect(res.status).toBe(422);
    await eventually(async () => expect(await balanceOf(user)).toBe(before));
  }, 90_000);
});
