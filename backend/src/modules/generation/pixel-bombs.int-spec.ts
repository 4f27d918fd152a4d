import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import type request from 'supertest';
import { DECODE_LIMITS, JobMessages, UPLOAD_LIMITS } from '@studio/contracts';
import { balanceOf, grantCredits, makeFolder, signIn, uniqueName, type Client } from '../../../test/clients';
import { fixture, rectangleMask, writeTestVideo, zeroPng } from '../../../test/fixtures';
import { startTestApp, type TestApp } from '../../../test/test-app';

/**
 * Issue 35: a pixel bomb within the tools' 40 MP budget (a 140 KB PNG declaring 6000x6000) was
 * decoded by sharp in the API process and queued as a paid job on every tool route. It is now
 * refused from its header (too many pixels for its bytes), 413 with a message, nothing charged,
 * wherever an image is uploaded; real photos larger than the tools' working size still pass.
 */
describe('pixel bombs on the tool routes (issue 35)', () => {
  let t: TestApp;
  let user: Client;
  let folder: string;
  let bomb: Buffer;
  let face: Buffer;
  let mask: Buffer;
  let dir: string;
  let video: Buffer;
  const adminName = uniqueName('chief');

  beforeAll(async () => {
    t = await startTestApp({
      JOB_RATE_LIMIT_PER_MINUTE: '1000',
      ADMIN_USERNAME: adminName,
      ADMIN_PASSWORD: 'admin-password-1',
    });
    user = await signIn(t, uniqueName('bomber'));
    await grantCredits(t, user.username, 200);
    folder = await makeFolder(user, 'bombs');
    const admin = await signIn(t, adminName, 'admin-password-1');
    expect((await admin.agent.put('/api/admin/flags').send({ videoFaceSwap: true })).status).toBe(200);
    bomb = await zeroPng(6000, 6000);
    face = fixture('cgi-model-22.jpg');
    const { width = 0, height = 0 } = await sharp(face).metadata();
    mask = await rectangleMask(width, height, { left: 10, top: 10, w: 50, h: 50 });
    dir = mkdtempSync(join(tmpdir(), 'pixel-bombs-'));
    video = readFileSync(writeTestVideo(join(dir, 'clip.mp4'), 1));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await t.close();
  });

  const jobCount = async () => ((await user.agent.get('/api/jobs')).body.content as unknown[]).length;

  type Send = (bomb: Buffer) => request.Test;
  const routes: [string, Send][] = [
    [
      'generateNoise original',
      (b) => user.agent.post('/api/generateNoise').field('amount', '1').attach('original', b, 'a.png'),
    ],
    ['generateNoise Clone0', (b) => user.agent.post('/api/generateNoise').attach('Clone0', b, 'a.png')],
    [
      'superResolution multipart',
      (b) => user.agent.post('/api/superResolution').attach('original', b, 'a.png'),
    ],
    [
      'superResolution JSON data URL',
      (b) =>
        user.agent
          .post('/api/superResolution')
          .send({ original: `data:image/png;base64,${b.toString('base64')}` }),
    ],
    [
      'inpaintImage original',
      (b) =>
        user.agent
          .post('/api/inpaintImage')
          .field('prompt', 'smile')
          .field('amount', '1')
          .attach('original', b, 'a.png')
          .attach('mask', mask, 'mask.png'),
    ],
    [
      'inpaintImage mask',
      (b) =>
        user.agent
          .post('/api/inpaintImage')
          .field('prompt', 'smile')
          .field('amount', '1')
          .attach('original', face, 'face.jpg')
          .attach('mask', b, 'mask.png'),
    ],
    [
      'bulkInpaintImage original',
      (b) =>
        user.agent
          .post('/api/bulkInpaintImage')
          .field('folder', folder)
          .field('prompt', 'smile')
          .field('amount', '1')
          .attach('original', b, 'a.png')
          .attach('mask', mask, 'mask.png'),
    ],
    [
      'bulkInpaintImage extra image',
      (b) =>
        user.agent
          .post('/api/bulkInpaintImage')
          .field('folder', folder)
          .field('prompt', 'smile')
          .field('amount', '1')
          .attach('original', face, 'face.jpg')
          .attach('mask', mask, 'mask.png')
          .attach('extra1', b, 'b.png'),
    ],
    [
      'faceSwap/check face',
      (b) =>
        user.agent.post('/api/faceSwap/check').attach('Swap0', b, 'a.png').attach('Swap1', face, 'b.jpg'),
    ],
    [
      'faceSwap/check target',
      (b) =>
        user.agent.post('/api/faceSwap/check').attach('Swap0', face, 'a.jpg').attach('Swap1', b, 'b.png'),
    ],
    [
      'faceSwap target',
      (b) =>
        user.agent
          .post('/api/faceSwap')
          .field('folder', folder)
          .field('consent', 'true')
          .attach('Swap0', face, 'a.jpg')
          .attach('Swap1', b, 'b.png'),
    ],
    [
      'faceSwapVideo/check face',
      (b) =>
        user.agent
          .post('/api/faceSwapVideo/check')
          .attach('SwapVideo0', video, 'clip.mp4')
          .attach('SwapVideo1', b, 'a.png'),
    ],
    [
      'faceSwapVideo face',
      (b) =>
        user.agent
          .post('/api/faceSwapVideo')
          .field('folder', folder)
          .field('consent', 'true')
          .field('length', '1')
          .attach('SwapVideo0', video, 'clip.mp4')
          .attach('SwapVideo1', b, 'a.png'),
    ],
  ];

  it('the bomb is within the tools’ pixel budget: only its bytes give it away', () => {
    expect(6000 * 6000).toBeLessThanOrEqual(UPLOAD_LIMITS.imagePixels);
    expect(bomb.length).toBeLessThan(200 * 1024);
  });

  it.each(routes)('%s: 413 with a clear message, nothing charged, no job', async (_label, send) => {
    const [balance, jobs] = [await balanceOf(user), await jobCount()];
    const res = await send(bomb);
    expect([res.status, res.body.content]).toEqual([413, JobMessages.imageTooSparse]);
    expect([await balanceOf(user), await jobCount()]).toEqual([balance, jobs]);
  });

  it('answers 20 bombs sent at once, each 413, and serves the next request', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        user.agent.post('/api/generateNoise').field('amount', '1').attach('original', bomb, 'a.png'),
      ),
    );
    // the per-user upload slots answer some 429; none is decoded, none is a 5xx
    expect(new Set(answers.map((a) => a.status))).toEqual(
      new Set(answers.some((a) => a.status === 429) ? [413, 429] : [413]),
    );
    expect((await user.agent.get('/api/jobs')).status).toBe(200);
  });

  it('takes a real photo larger than the tools’ working size (decoded in the decoder process)', async () => {
    // a test face enlarged to 2816x3664 (10 MP) as a camera would save it: far denser than a bomb
    const photo = await sharp(face).resize({ width: 2816 }).jpeg({ quality: 85 }).toBuffer();
    const { width = 0, height = 0 } = await sharp(photo).metadata();
    expect(width * height).toBeGreaterThan(DECODE_LIMITS.denseAbovePixels);
    const before = await balanceOf(user);
    const res = await user.agent
      .post('/api/generateNoise')
      .field('amount', '1')
      .attach('original', photo, 'p.jpg');
    expect(res.status).toBe(200);
    expect(await balanceOf(user)).toBeLessThan(before);
  });
});
