import sharp from 'sharp';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { JobMessages, type JobTool, type JobView } from '@studio/contracts';
import {
  EngineInputError,
  type Capability,
  type EncodedImage,
  type InferenceEngine,
  type RunContext,
} from '@studio/inference';
import type { AuthUser } from '../src/modules/auth/auth-user';
import { GenerationService, type JobInput } from '../src/modules/generation/generation.service';
import { eventually } from './clients';
import type { TestApp } from './test-app';

/**
 * An engine for every tool that answers at once with a tiny image, or as a test tells it: fail
 * with an input error, throw a transient error once (retried), or hold until released.
 */
export class ScriptedEngine implements InferenceEngine {
  readonly name = 'scripted';
  readonly capabilities = new Set<Capability>([
    'clone',
    'superResolve',
    'faceSwap',
    'inpaint',
    'generate',
    'faceSwapVideo',
  ]);
  next: 'ok' | 'input-error' | 'transient-once' | 'hold' = 'ok';
  readonly holding = new Set<() => void>();

  /** How long each call works before it answers (0: at once). */
  workMs = 0;

  private async answer(signal?: AbortSignal): Promise<void> {
    if (this.workMs) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, this.workMs);
        signal?.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(signal.reason as Error);
        });
      });
    }
    const mode = this.next;
    if (mode === 'input-error') throw new EngineInputError('no_face_source', JobMessages.noFaceSource);
    if (mode === 'transient-once') {
      this.next = 'ok';
      throw new Error('GPU server answered 502');
    }
    if (mode === 'hold') {
      await new Promise<void>((resolve, reject) => {
        this.holding.add(resolve);
        signal?.addEventListener('abort', () => reject(signal.reason as Error));
      });
    }
  }

  private async image(context?: RunContext): Promise<EncodedImage> {
    await this.answer(context?.signal);
    const data = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#808080' } })
      .png()
      .toBuffer();
    return { data, format: 'png', width: 4, height: 4 };
  }

  clone = async (_r: unknown, c?: RunContext) => [await this.image(c)];
  superResolve = (_r: unknown, c?: RunContext) => this.image(c);
  faceSwap = (_r: unknown, c?: RunContext) => this.image(c);
  inpaint = (_r: unknown, c?: RunContext) => this.image(c);
  generate = (_r: unknown, c?: RunContext) => this.image(c);
  faceSwapVideo = async (r: { outputPath: string }, c?: RunContext) => {
    await this.answer(c?.signal);
    await writeFile(r.outputPath, await tinyVideo());
  };
}

const run = promisify(execFile);
let tinyMp4: Promise<Buffer> | undefined;

/** A real 16 x 16 grey H.264 clip of three frames (the content check samples a video's frames). */
function tinyVideo(): Promise<Buffer> {
  tinyMp4 ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), 'scripted-video-'));
    try {
      const file = join(dir, 'tiny.mp4');
      await run('ffmpeg', [
        ...['-v', 'error', '-f', 'lavfi', '-i', 'color=c=gray:s=16x16:r=10:d=0.3'],
        ...['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-y', file],
      ]);
      return await readFile(file);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  })();
  return tinyMp4;
}

const png = () =>
  sharp({ create: { width: 8, height: 8, channels: 3, background: '#336699' } })
    .png()
    .toBuffer();

/** Submits one job of `tool` for `user` straight to the generation service (inputs the engine ignores). */
export async function submitToolJob(t: TestApp, user: AuthUser, tool: JobTool): Promise<JobView> {
  const image: JobInput = { data: await png(), extension: 'png' };
  const video: JobInput = { data: Buffer.from('video bytes'), extension: 'mp4' };
  const inputs: Record<JobTool, JobInput[]> = {
    clone: [image],
    superResolution: [image],
    faceSwap: [image, image],
    inpaint: [image, image],
    generate: [],
    faceSwapVideo: [video, image],
  };
  return t.app.get(GenerationService).submit(user, {
    tool,
    inputs: inputs[tool],
    units: tool === 'faceSwapVideo' ? 3 : 1,
    params: tool === 'clone' ? { amount: 1 } : tool === 'generate' ? { prompt: 'adult woman, portrait' } : {},
  });
}

/** Resolves with the job once it has ended. */
export const jobEnd = (t: TestApp, user: AuthUser, jobId: string) =>
  eventually(async () => {
    const job = await t.app.get(GenerationService).get(user, jobId);
    if (!['succeeded', 'failed', 'cancelled'].includes(job.state)) throw new Error(`job ${job.state}`);
    return job;
  }, 30_000);
