import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { FaceSwapMessages, videoSwapCost, type FaceSwapVideoCheck, type JobView } from '@studio/contracts';
import {
  balanceOf,
  downloadBytes,
  eventually,
  grantCredits,
  makeFolder,
  signIn,
  uniqueName,
  type Client,
} from '../../../test/clients';
import { faceCrop, fixture, regionDifference } from '../../../test/fixtures';
import { ScriptedEngine } from '../../../test/scripted-engine';
import { startTestApp, type TestApp } from '../../../test/test-app';
import { EngineRegistry } from '../engines';

/** Pan of the clip: the picture moves left by this many pixels per second. */
const PAN_PER_SECOND = 20;
const FPS = 10;
const SECONDS = 2;

const centre = (box: number[]) => [box[0] + box[2] / 2, box[1] + box[3] / 2];

describe('video face swap: the free check and following the chosen face (real ffmpeg, engine pool, ledger)', () => {
  let t: TestApp;
  let dir: string;
  let alice: Client;
  let bob: Client;
  let folderId: string;
  /** Two people side by side, panning slowly: the larger on the left (face 0), the other right (face 1). */
  let clip: Buffer;
  let clipPath: string;
  const adminName = uniqueName('chief');

  const historyCount = async (client: Client) =>
    ((await client.agent.get('/api/credits/history')).body.content.items as unknown[]).length;
  const jobCount = async (client: Client) =>
    ((await client.agent.get('/api/jobs')).body.content as unknown[]).length;

  const check = (client: Client, fields: Record<string, string> = {}) => {
    let req = client.agent.post('/api/faceSwapVideo/check');
    for (const [name, value] of Object.entries(fields)) req = req.field(name, value);
    return req
      .attach('SwapVideo0', clip, 'clip.mp4')
      .attach('SwapVideo1', fixture('ai-face.jpg'), 'face.jpg');
  };

  const swap = (client: Client, fields: Record<string, string>) => {
    let req = client.agent
      .post('/api/faceSwapVideo')
      .field('folder', folderId)
      .field('consent', 'true')
      .field('length', '1');
    for (const [name, value] of Object.entries(fields)) req = req.field(name, value);
    return req
      .attach('SwapVideo0', clip, 'clip.mp4')
      .attach('SwapVideo1', fixture('ai-face.jpg'), 'face.jpg');
  };

  /** Frame `n` of a video file, as PNG. */
  const frameOf = (path: string, n: number) =>
    execFileSync('ffmpeg', [
      ...['-loglevel', 'error', '-i', path, '-vf', `select=eq(n\\,${n})`, '-frames:v', '1'],
      ...['-f', 'image2', '-c:v', 'png', 'pipe:1'],
    ]);

  beforeAll(async () => {
    t = await startTestApp({ ADMIN_USERNAME: adminName, ADMIN_PASSWORD: 'admin-password-1' });
    dir = mkdtempSync(join(tmpdir(), 'video-check-'));
    alice = await signIn(t, uniqueName('alice'));
    bob = await signIn(t, uniqueName('bob'));
    await grantCredits(t, alice.username, 40);
    folderId = await makeFolder(alice, 'Videos');
    const admin = await signIn(t, adminName, 'admin-password-1');
    expect((await admin.agent.put('/api/admin/flags').send({ videoFaceSwap: true })).status).toBe(200);
    // Two test faces (../shared/testdata/faces) on a grey canvas wider than the clip, which pans.
    const canvas = await sharp({
      create: { width: 720, height: 360, channels: 3, background: { r: 128, g: 128, b: 128 } },
    })
      .composite([
        { input: await faceCrop('cgi-model-3.jpg', [347, 134, 266, 266], 300), left: 40, top: 30 },
        { input: await faceCrop('cgi-model-22.jpg', [284, 161, 341, 342], 210), left: 420, top: 90 },
      ])
      .png()
      .toBuffer();
    writeFileSync(join(dir, 'canvas.png'), canvas);
    clipPath = join(dir, 'two-people.mp4');
    execFileSync('ffmpeg', [
      ...['-y', '-loglevel', 'error', '-loop', '1', '-framerate', String(FPS), '-i', join(dir, 'canvas.png')],
      ...['-t', String(SECONDS), '-vf', `crop=640:360:'t*${PAN_PER_SECOND}':0`],
      ...['-c:v', 'libx264', '-pix_fmt', 'yuv420p', clipPath],
    ]);
    clip = readFileSync(clipPath);
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('reports the faces of the face image and of the first frame, and the price, for free: nothing charged, recorded or stored', async () => {
    const entries = await historyCount(bob);
    expect(await balanceOf(bob)).toBe(0); // free even with no credits
    const res = await check(bob);
    expect(res.status).toBe(200);
    const report = res.body.content as FaceSwapVideoCheck;
    const duration = Number(
      execFileSync('ffprobe', [
        '-v',
        'error',
        '-show_entries',
        'format=duration',
        '-of',
        'csv=p=0',
        clipPath,
      ]),
    );
    expect(report).toMatchObject({
      ok: true,
      problems: [],
      sourceFace: 0,
      targetFace: 0,
      price: videoSwapCost(duration),
    });
    expect(report.durationSeconds).toBeCloseTo(duration, 1);
    expect(report.source.faces).toHaveLength(1);
    // The first frame at the size the swap processes it, with both people, largest first.
    expect([report.frame.width, report.frame.height]).toEqual([640, 360]);
    expect(report.frame.faces).toHaveLength(2);
    const [left, right] = report.frame.faces.map((face) => centre(face.box));
    expect(left[0]).toBeGreaterThan(40);
    expect(left[0]).toBeLessThan(340);
    expect(right[0]).toBeGreaterThan(420);
    expect(right[0]).toBeLessThan(630);
    for (const face of report.frame.faces) expect(Math.abs(face.yaw)).toBeLessThan(25);
    // The frame itself, for the page to draw the boxes on.
    const frame = Buffer.from(report.frameImage.replace(/^data:image\/jpeg;base64,/, ''), 'base64');
    expect(await sharp(frame).metadata()).toMatchObject({ format: 'jpeg', width: 640, height: 360 });

    expect(await balanceOf(bob)).toBe(0);
    expect(await historyCount(bob)).toBe(entries);
    expect(await jobCount(bob)).toBe(0);
  }, 120_000);

  it('judges the choice: another face of the first frame, a face that is not there, a garbled index', async () => {
    const second = await check(bob, { targetFace: '1' });
    expect(second.body.content).toMatchObject({ ok: true, sourceFace: 0, targetFace: 1 });
    const missing = await check(bob, { targetFace: '2', sourceFace: '1' });
    expect(missing.status).toBe(200);
    expect(missing.body.content).toMatchObject({
      ok: false,
      targetFace: null,
      sourceFace: null,
      problems: [FaceSwapMessages.badSourceFace, FaceSwapMessages.badVideoFace],
    });
    const garbled = await check(bob, { targetFace: 'left' });
    expect(garbled.body.content).toMatchObject({ ok: false, problems: [FaceSwapMessages.badVideoFace] });
  }, 120_000);

  it('refuses a swap whose choice fails the check (400) before any charge', async () => {
    const balance = await balanceOf(alice);
    const entries = await historyCount(alice);
    const jobs = await jobCount(alice);
    const res = await swap(alice, { targetFace: '5' });
    expect(res.status).toBe(400);
    expect(res.body.content).toBe(FaceSwapMessages.badVideoFace);
    const noFace = await alice.agent
      .post('/api/faceSwapVideo')
      .field('folder', folderId)
      .field('consent', 'true')
      .attach('SwapVideo0', clip, 'clip.mp4')
      .attach(
        'SwapVideo1',
        await sharp({ create: { width: 300, height: 300, channels: 3, background: '#5a8cc8' } })
          .png()
          .toBuffer(),
        'blank.png',
      );
    expect(noFace.status).toBe(400);
    expect(await balanceOf(alice)).toBe(balance);
    expect(await historyCount(alice)).toBe(entries);
    expect(await jobCount(alice)).toBe(jobs);
  }, 120_000);

  it('swaps the chosen second person through the clip and leaves the first as it was', async () => {
    const checked = (await check(alice, { targetFace: '1' })).body.content as FaceSwapVideoCheck;
    const before = await balanceOf(alice);
    const res = await swap(alice, { targetFace: '1' });
    expect(res.status).toBe(200);
    const jobId = (res.body.content.job as JobView)._id;
    expect(await balanceOf(alice)).toBe(before - checked.price);
    const done = await eventually(async () => {
      const job = (await alice.agent.get(`/api/jobs/${jobId}`)).body.content as JobView;
      expect(job.state).toBe('succeeded');
      return job;
    }, 240_000);
    const outPath = join(dir, 'out.mp4');
    writeFileSync(outPath, await downloadBytes(alice, done.items[0].url));
    const [first, second] = checked.frame.faces.map((face) => face.box);
    // The first frame, and a late one (the people have moved left with the pan).
    for (const n of [0, 15]) {
      const shift = Math.round((n / FPS) * PAN_PER_SECOND);
      const moved = (box: number[]) => [box[0] - shift, box[1], box[2], box[3]];
      const [input, output] = [frameOf(clipPath, n), frameOf(outPath, n)];
      if (process.env.FACE_SWAP_TEST_OUT) {
        writeFileSync(join(process.env.FACE_SWAP_TEST_OUT, `video-frame-${n}.png`), output);
        writeFileSync(join(process.env.FACE_SWAP_TEST_OUT, `video-frame-${n}-input.png`), input);
      }
      const chosen = await regionDifference(output, input, moved(second));
      const other = await regionDifference(output, input, moved(first));
      expect({ n, chosen: chosen > 8, other: other < 3 }).toEqual({ n, chosen: true, other: true });
    }
  }, 300_000);

  it('refuses a face choice (400, free) when the engine in use cannot take one', async () => {
    const registry = t.app.get(EngineRegistry);
    registry.override('faceSwapVideo', new ScriptedEngine());
    try {
      const balance = await balanceOf(alice);
      const res = await swap(alice, { targetFace: '1' });
      expect(res.status).toBe(400);
      expect(res.body.content).toBe(FaceSwapMessages.choiceUnsupported);
      expect(await balanceOf(alice)).toBe(balance);
    } finally {
      registry.override('faceSwapVideo', null);
    }
  }, 60_000);
});
