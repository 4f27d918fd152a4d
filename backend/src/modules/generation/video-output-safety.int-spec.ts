import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InjectionToken } from '@nestjs/common';
import { getModelToken } from '@nestjs/mongoose';
import type { Model } from 'mongoose';
import sharp from 'sharp';
import { SAFETY_REASONS, videoSwapCost, type JobView } from '@studio/contracts';
import type { RunContext } from '@studio/inference';
import {
  balanceOf,
  eventually,
  grantCredits,
  makeFolder,
  signIn,
  uniqueName,
  type Client,
} from '../../../test/clients';
import { fixture, writeTestVideo } from '../../../test/fixtures';
import { marked, NEUTRAL_SCORES } from '../../../test/marked-classifier';
import { ScriptedEngine } from '../../../test/scripted-engine';
import { startTestApp, type TestApp } from '../../../test/test-app';
import { EngineRegistry } from '../engines';
import { ContentItem } from '../folders';
import { Job } from './job.schema';

/** A video swap engine whose result is the given video (a GPU server's stand-in). */
class VideoResult extends ScriptedEngine {
  constructor(private readonly video: Buffer) {
    super();
  }
  override faceSwapVideo = async (r: { outputPath: string }, _c?: RunContext) => {
    writeFileSync(r.outputPath, this.video);
  };
}

describe('video face swap outputs are looked at too: frames spread over the result (real ffmpeg, marked-image classifier double)', () => {
  let t: TestApp;
  let dir: string;
  let clip: Buffer;
  /** 3 s at 10 fps: the first second neutral, the rest carrying the "sexual" mark (never a sexual picture). */
  let sexualLater: Buffer;
  let neutral: Buffer;
  const adminName = uniqueName('chief');

  /** A 256 x 256 H.264 video: `seconds` of each picture in turn, 10 fps, as a swap engine encodes. */
  const videoOf = (pictures: [Buffer, number][]) => {
    const inputs = pictures.flatMap(([picture, seconds], i) => {
      const file = join(dir, `picture-${i}-${Math.random().toString(36).slice(2)}.png`);
      writeFileSync(file, picture);
      return ['-loop', '1', '-framerate', '10', '-t', String(seconds), '-i', file];
    });
    // each picture in one pixel format first: concat needs them alike
    const concat =
      pictures.map((_, i) => `[${i}:v]format=yuv420p,setsar=1[p${i}];`).join('') +
      pictures.map((_, i) => `[p${i}]`).join('') +
      `concat=n=${pictures.length}:v=1[v]`;
    const out = join(dir, `video-${Math.random().toString(36).slice(2)}.mp4`);
    execFileSync('ffmpeg', [
      ...['-v', 'error', ...inputs, '-filter_complex', concat, '-map', '[v]'],
      ...['-c:v', 'libx264', '-crf', '20', '-pix_fmt', 'yuv420p', '-y', out],
    ]);
    return readFileSync(out);
  };

  beforeAll(async () => {
    t = await startTestApp({
      JOB_WAIT_MS: '60000',
      ADMIN_USERNAME: adminName,
      ADMIN_PASSWORD: 'admin-password-1',
    });
    const admin = await signIn(t, adminName, 'admin-password-1');
    expect((await admin.agent.put('/api/admin/flags').send({ videoFaceSwap: true })).status).toBe(200);
    dir = mkdtempSync(join(tmpdir(), 'video-output-safety-'));
    clip = readFileSync(writeTestVideo(join(dir, 'clip.mp4'), 1));
    const face = await sharp(fixture('ai-face.jpg')).png().toBuffer(); // 256 x 256
    sexualLater = videoOf([
      [face, 1],
      [await marked(face, 'sexual', 32), 2],
    ]);
    neutral = videoOf([[face, 3]]);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const jobs = () => t.app.get<Model<Job>>(getModelToken(Job.name) as InjectionToken);
  const items = () => t.app.get<Model<ContentItem>>(getModelToken(ContentItem.name) as InjectionToken);
  /** Runs a video swap whose engine makes `result`; resolves with the job once it has ended. */
  const swapVideo = async (user: Client, result: Buffer): Promise<JobView> => {
    t.app.get(EngineRegistry).override('faceSwapVideo', new VideoResult(result));
    try {
      const res = await user.agent
        .post('/api/faceSwapVideo')
        .field('folder', await makeFolder(user, 'Videos'))
        .field('consent', 'true')
        .field('length', '1')
        .attach('SwapVideo0', clip, 'clip.mp4')
        .attach('SwapVideo1', fixture('ai-face.jpg'), 'face.jpg');
      expect(res.status).toBe(200);
      const jobId = (res.body.content.job as JobView)._id;
      return await eventually(async () => {
        const job = (await user.agent.get(`/api/jobs/${jobId}`)).body.content as JobView;
        expect(['succeeded', 'failed']).toContain(job.state);
        return job;
      }, 60_000);
    } finally {
      t.app.get(EngineRegistry).override('faceSwapVideo', null);
    }
  };
  const newcomer = async () => {
    const user = await signIn(t, uniqueName('adult'));
    await grantCredits(t, user.username, 40);
    return user;
  };

  it('a result whose later frames are classified sexual is withheld and refunded with the reason', async () => {
    const user = await newcomer();
    const job = await swapVideo(user, sexualLater);
    expect(await balanceOf(user)).toBe(40);
    expect(job).toMatchObject({
      tool: 'faceSwapVideo',
      state: 'failed',
      error: SAFETY_REASONS.sexual_output,
    });
    const record = await jobs().findById(job._id).lean();
    expect(record!.safety).toMatchObject({ verdict: 'withhold', reason: 'sexual_output' });
    expect(record!.safety!.outputs).toHaveLength(1); // one check for the one video: its worst frame
    expect(record!.safety!.outputs![0].scores.porn).toBeGreaterThan(0.5);
    expect(await items().countDocuments({ jobId: job._id })).toBe(0);
    const kinds = (await user.agent.get('/api/credits/history')).body.content.items.map(
      (e: { kind: string }) => e.kind,
    );
    expect(kinds).toEqual(expect.arrayContaining(['reservation', 'refund']));
  }, 120_000);

  it('a neutral result is shown, its check stored with the job and the video item', async () => {
    const user = await newcomer();
    const job = await swapVideo(user, neutral);
    expect(job.state).toBe('succeeded');
    expect(await balanceOf(user)).toBe(40 - videoSwapCost(1));
    const record = await jobs().findById(job._id).lean();
    const check = { scores: NEUTRAL_SCORES, faces: [] };
    expect(record!.safety).toMatchObject({ outputs: [check], verdict: 'show' });
    const item = await eventually(async () => {
      const found = await items().findOne({ jobId: job._id }).lean();
      if (!found) throw new Error('no item yet');
      return found;
    });
    expect(item).toMatchObject({ kind: 'video', check });
  }, 120_000);
});
