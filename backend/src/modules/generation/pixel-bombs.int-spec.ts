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

  /** Where the bomb goes in a request that is otherwise complete (nothing refuses it before its image is read). */
  const BOMB = 'bomb';
  type Part = [field: string, file: 'bomb' | 'face' | 'mask' | 'video'];
  const routes: [label: string, path: string, fields: Record<string, string>, parts: Part[]][] = [
    ['generateNoise original', '/api/generateNoise', { amount: '1' }, [['original', BOMB]]],
    ['generateNoise Clone0', '/api/generateNoise', {}, [['Clone0', BOMB]]],
    ['superResolution multipart', '/api/superResolution', {}, [['original', BOMB]]],
    [
      'inpaintImage original',
      '/api/inpaintImage',
      { prompt: 'smile', amount: '1' },
      [
        ['original', BOMB],
        ['mask', 'mask'],
      ],
    ],
    [
      'inpaintImage mask',
      '/api/inpaintImage',
      { prompt: 'smile', amount: '1' },
      [
        ['original', 'face'],
        ['mask', BOMB],
      ],
    ],
    [
      'bulkInpaintImage original',
      '/api/bulkInpaintImage',
      { prompt: 'smile', amount: '1', folder: 'FOLDER' },
      [
        ['original', BOMB],
        ['mask', 'mask'],
      ],
    ],
    [
      'bulkInpaintImage extra image',
      '/api/bulkInpaintImage',
      { prompt: 'smile', amount: '1', folder: 'FOLDER' },
      [
        ['original', 'face'],
        ['mask', 'mask'],
        ['extra1', BOMB],
      ],
    ],
    [
      'faceSwap/check face',
      '/api/faceSwap/check',
      {},
      [
        ['Swap0', BOMB],
        ['Swap1', 'face'],
      ],
    ],
    [
      'faceSwap/check target',
      '/api/faceSwap/check',
      {},
      [
        ['Swap0', 'face'],
        ['Swap1', BOMB],
      ],
    ],
    [
      'faceSwap target',
      '/api/faceSwap',
      { folder: 'FOLDER', consent: 'true' },
      [
        ['Swap0', 'face'],
        ['Swap1', BOMB],
      ],
    ],
    [
      'faceSwapVideo/check face',
      '/api/faceSwapVideo/check',
      {},
      [
        ['SwapVideo0', 'video'],
        ['SwapVideo1', BOMB],
      ],
    ],
    [
      'faceSwapVideo face',
      '/api/faceSwapVideo',
      { folder: 'FOLDER', consent: 'true', length: '1' },
      [
        ['SwapVideo0', 'video'],
        ['SwapVideo1', BOMB],
      ],
    ],
  ];

  function send(path: string, fields: Record<string, string>, parts: Part[]): request.Test {
    const files = { bomb, face, mask, video };
    let req = user.agent.post(path);
    for (const [name, value] of Object.entries(fields))
      req = req.field(name, value === 'FOLDER' ? folder : value);
    for (const [field, file] of parts)
      req = req.attach(field, files[file], file === 'video' ? 'c.mp4' : `${file}.png`);
    return req;
  }

  it('superResolution JSON data URL: 413 with a clear message, nothing charged, no job', async () => {
    const [balance, jobs] = [await balanceOf(user), await jobCount()];
    const res = await user.agent
      .post('/api/superResolution')
      .send({ original: `data:image/png;base64,${bomb.toString('base64')}` });
    expect([res.status, res.body.content]).toEqual([413, JobMessages.imageTooSparse]);
    expect([await balanceOf(user), await jobCount()]).toEqual([balance, jobs]);
  });

  it('the bomb is within the tools’ pixel budget: only its bytes give it away', () => {
    expect(6000 * 6000).toBeLessThanOrEqual(UPLOAD_LIMITS.imagePixels);
    expect(bomb.length).toBeLessThan(200 * 1024);
  });

  it.each(routes)(
    '%s: 413 with a clear message, nothing charged, no job',
    async (_label, path, fields, parts) => {
      const [balance, jobs] = [await balanceOf(user), await jobCount()];
      const res = await send(path, fields, parts);
      expect([res.status, res.body.content]).toEqual([413, JobMessages.imageTooSparse]);
      expect([await balanceOf(user), await jobCount()]).toEqual([balance, jobs]);
    },
  );

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
