import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { FaceSwapMessages, JobMessages, type FaceSwapCheck, type JobView } from '@studio/contracts';
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
import { startTestApp, type TestApp } from '../../../test/test-app';

/** Pictures on a grey canvas, at known places. */
async function compose(width: number, height: number, parts: { image: Buffer; left: number; top: number }[]) {
  return sharp({ create: { width, height, channels: 3, background: { r: 128, g: 128, b: 128 } } })
    .composite(parts.map(({ image, left, top }) => ({ input: image, left, top })))
    .png()
    .toBuffer();
}

/** FACE_SWAP_TEST_OUT=<folder> keeps the inputs and outputs for looking at. */
function keep(name: string, image: Buffer): void {
  const folder = process.env.FACE_SWAP_TEST_OUT;
  if (folder) writeFileSync(join(folder, `${name}.png`), image);
}

const centre = (box: number[]) => [box[0] + box[2] / 2, box[1] + box[3] / 2];

describe('face swap: the free check and the face choice (real engine pool, models, ledger)', () => {
  let t: TestApp;
  let alice: Client;
  let bob: Client;
  /** Two people side by side: a large one on the left (face 0) and a smaller one (face 1). */
  let source: Buffer;
  /** Two people, larger than 1024 px: output must keep this size. */
  let target: Buffer;

  const historyCount = async (client: Client) =>
    ((await client.agent.get('/api/credits/history')).body.content.items as unknown[]).length;

  const check = (client: Client, face: Buffer, onto: Buffer, fields: Record<string, string> = {}) => {
    let req = client.agent.post('/api/faceSwap/check');
    for (const [name, value] of Object.entries(fields)) req = req.field(name, value);
    return req.attach('Swap0', face, 'face.png').attach('Swap1', onto, 'target.png');
  };

  const swap = (
    client: Client,
    folder: string,
    face: Buffer,
    onto: Buffer,
    fields: Record<string, string>,
  ) => {
    let req = client.agent.post('/api/faceSwap').field('folder', folder).field('consent', 'true');
    for (const [name, value] of Object.entries(fields)) req = req.field(name, value);
    return req.attach('Swap0', face, 'face.png').attach('Swap1', onto, 'target.png');
  };

  beforeAll(async () => {
    t = await startTestApp();
    alice = await signIn(t, uniqueName('alice'));
    bob = await signIn(t, uniqueName('bob'));
    await grantCredits(t, alice.username, 5);
    // Face boxes of the fixtures as the engine finds them (cgi-model-*: about frontal).
    source = await compose(900, 420, [
      { image: await sharp(fixture('ai-face.jpg')).resize(380, 380).png().toBuffer(), left: 20, top: 20 },
      { image: await faceCrop('cgi-model-1.jpg', [568, 60, 242, 241], 260, 1.5), left: 560, top: 80 },
    ]);
    target = await compose(2000, 1000, [
      { image: await faceCrop('cgi-model-3.jpg', [347, 134, 266, 266], 900, 1.6), left: 60, top: 50 },
      { image: await faceCrop('cgi-model-22.jpg', [284, 161, 341, 342], 600, 1.6), left: 1250, top: 250 },
    ]);
    keep('source', source);
    keep('target', target);
  }, 120_000);

  afterAll(async () => {
    await t?.close();
  });

  it('reports the faces of both images, the choice and the price, and charges and records nothing', async () => {
    const balance = await balanceOf(alice);
    const entries = await historyCount(alice);
    const res = await check(alice, source, target);
    expect(res.status).toBe(200);
    const report = res.body.content as FaceSwapCheck;
    expect(report).toMatchObject({ ok: true, problems: [], sourceFace: 0, targetFaces: [0], price: 1 });
    // The target at its full size (the swap works on it and returns it at that size).
    expect([report.target.width, report.target.height]).toEqual([2000, 1000]);
    expect([report.source.width, report.source.height]).toEqual([900, 420]);
    expect(report.source.faces).toHaveLength(2);
    expect(report.target.faces).toHaveLength(2);
    // Largest first, each where it was put.
    const [t0, t1] = report.target.faces.map((face) => centre(face.box));
    expect(t0[0]).toBeGreaterThan(60);
    expect(t0[0]).toBeLessThan(960);
    expect(t1[0]).toBeGreaterThan(1250);
    expect(t1[0]).toBeLessThan(1850);
    const [s0, s1] = report.source.faces.map((face) => centre(face.box));
    expect(s0[0]).toBeLessThan(400);
    expect(s1[0]).toBeGreaterThan(560);
    for (const face of [...report.source.faces, ...report.target.faces]) {
      expect(Math.abs(face.yaw)).toBeLessThan(20);
      expect(face.score).toBeGreaterThan(0.5);
    }
    expect(await balanceOf(alice)).toBe(balance);
    expect(await historyCount(alice)).toBe(entries);
  }, 120_000);

  it('is free for an account with no credits, and takes one, several or all faces', async () => {
    const entries = await historyCount(bob);
    expect(await balanceOf(bob)).toBe(0);
    const all = await check(bob, source, target, { sourceFace: '1', targetFaces: 'all' });
    expect(all.status).toBe(200);
    expect(all.body.content).toMatchObject({ ok: true, sourceFace: 1, targetFaces: [0, 1], price: 1 });
    const one = await check(bob, source, target, { targetFaces: '1' });
    expect(one.body.content).toMatchObject({ ok: true, sourceFace: 0, targetFaces: [1] });
    // A face that is not there: refused, with the reason.
    const missing = await check(bob, source, target, { sourceFace: '2', targetFaces: '0,3' });
    expect(missing.body.content).toMatchObject({
      ok: false,
      problems: [FaceSwapMessages.badSourceFace, FaceSwapMessages.badTargetFaces],
    });
    const garbled = await check(bob, source, target, { targetFaces: 'left' });
    expect(garbled.body.content).toMatchObject({ ok: false, problems: [FaceSwapMessages.badTargetFaces] });
    expect(await historyCount(bob)).toBe(entries);
  }, 120_000);

  it('warns about no face and refuses poses too far apart; the swap request is refused the same way, free', async () => {
    const turned = fixture('ai-upper.jpg'); // yaw about 43 degrees
    const turnedAway = await sharp(turned).flop().png().toBuffer(); // about -43
    const blank = await sharp({ create: { width: 300, height: 300, channels: 3, background: '#5a8cc8' } })
      .png()
      .toBuffer();
    const noFace = await check(alice, blank, target);
    expect(noFace.body.content).toMatchObject({
      ok: false,
      problems: [JobMessages.noFaceSource],
      sourceFace: null,
    });
    const pose = await check(alice, turnedAway, turned);
    expect(pose.body.content.ok).toBe(false);
    expect(pose.body.content.problems[0]).toMatch(/turned \d+° differently/);

    const folder = await makeFolder(alice, 'Refused');
    const balance = await balanceOf(alice);
    const entries = await historyCount(alice);
    for (const [face, onto, fields, message] of [
      [blank, target, {}, JobMessages.noFaceSource],
      [turnedAway, turned, {}, pose.body.content.problems[0]],
      [source, target, { targetFaces: '2' }, FaceSwapMessages.badTargetFaces],
    ] as const) {
      const res = await swap(alice, folder, face, onto, fields);
      expect(res.status).toBe(400);
      expect(res.body.content).toBe(message);
    }
    expect(await balanceOf(alice)).toBe(balance);
    expect(await historyCount(alice)).toBe(entries);
    expect((await alice.agent.get('/api/jobs')).body.content).toHaveLength(0);
  }, 180_000);

  it('swaps the chosen source face onto the chosen target face only, at the target size, charged once', async () => {
    const folder = await makeFolder(alice, 'Chosen');
    const balance = await balanceOf(alice);
    const report = (await check(alice, source, target, { sourceFace: '1', targetFaces: '1' })).body
      .content as FaceSwapCheck;
    expect(report.ok).toBe(true);
    const res = await swap(alice, folder, source, target, { sourceFace: '1', targetFaces: '1' });
    expect(res.status).toBe(200);
    const jobId = res.body.content.job._id as string;
    const job = await eventually(async () => {
      const view = (await alice.agent.get(`/api/jobs/${jobId}`)).body.content as JobView;
      expect(view.state).toBe('succeeded');
      return view;
    }, 120_000);
    expect(job.cost).toBe(report.price);
    expect(await balanceOf(alice)).toBe(balance - report.price);
    const output = await downloadBytes(alice, job.items[0].url);
    expect(await sharp(output).metadata()).toMatchObject({ width: 2000, height: 1000 });
    keep('chosen', output);
    // Face 1 changed, face 0 left as it was (JPEG noise only).
    const [face0, face1] = report.target.faces.map((face) => face.box);
    const targetPng = await sharp(target).png().toBuffer();
    expect(await regionDifference(output, targetPng, face1)).toBeGreaterThan(8);
    expect(await regionDifference(output, targetPng, face0)).toBeLessThan(2);

    // Another user sees none of it: not the job, not its result.
    expect((await bob.agent.get(`/api/jobs/${jobId}`)).status).toBe(404);
    expect((await bob.agent.get('/api/jobs')).body.content).toHaveLength(0);
    expect((await bob.agent.get(job.items[0].url)).status).toBeGreaterThanOrEqual(400);
  }, 240_000);

  it('swaps every target face when asked to', async () => {
    const folder = await makeFolder(alice, 'All');
    const res = await swap(alice, folder, source, target, { targetFaces: 'all' });
    expect(res.status).toBe(200);
    const jobId = res.body.content.job._id as string;
    const job = await eventually(async () => {
      const view = (await alice.agent.get(`/api/jobs/${jobId}`)).body.content as JobView;
      expect(view.state).toBe('succeeded');
      return view;
    }, 120_000);
    expect(job.cost).toBe(1);
    const output = await downloadBytes(alice, job.items[0].url);
    keep('all', output);
    const report = (await check(alice, source, target)).body.content as FaceSwapCheck;
    const targetPng = await sharp(target).png().toBuffer();
    for (const face of report.target.faces) {
      expect(await regionDifference(output, targetPng, face.box)).toBeGreaterThan(8);
    }
  }, 240_000);
});
