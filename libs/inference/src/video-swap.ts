import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, readdir, rename, rm, unlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import ffmpeg from 'fluent-ffmpeg';
import { JobMessages, VIDEO_MAX_SECONDS } from '@studio/contracts';
import { CAPPED_FFMPEG, CAPPED_FFPROBE, isVideoFrameTooLarge } from './decoders';
import { EngineInputError, FaceSwapVideoRequest, RunContext } from './engine.port';
import type { Box, DetectedFace, FaceAnalyzer } from './face-analyzer';
import { DEFAULT_SWAP_TUNING, SwapTuning, swapFace } from './face-swap';
import { MAX_SIDE, decodeRgb, fromRgb } from './image-io';
import { EngineLogger, silentLogger } from './logger';
import { AI_GENERATED_MARK, SOFTWARE } from './provenance';

/** What ffprobe says about a video. Sizes are as displayed (rotation applied). */
export interface VideoInfo {
  durationSeconds: number;
  width: number;
  height: number;
  /** Average frames per second. */
  fps: number;
  hasAudio: boolean;
  /** Frames of the video stream (counted by the container, else duration x fps). */
  frames: number;
  videoCodec: string;
  audioCodec?: string;
  /** Display rotation in degrees (phone videos), 0 if none. */
  rotation: number;
}

/** The comment written into every video the engine makes (mp4 ©cmt, `format.tags.comment`). */
export const AI_GENERATED_VIDEO_COMMENT = `${AI_GENERATED_MARK} video: face swap, ${SOFTWARE}`;

/**
 * A video may run this much longer than VIDEO_MAX_SECONDS: containers round, and a clip recorded
 * as "30 s" often measures 30.03 s.
 */
export const VIDEO_DURATION_TOLERANCE_SECONDS = 0.5;

/** Whether a video of this duration (measured with `probeVideo`) is over the limit. */
export function isVideoTooLong(durationSeconds: number): boolean {
  return durationSeconds > VIDEO_MAX_SECONDS + VIDEO_DURATION_TOLERANCE_SECONDS;
}

/** Frame rates above this are reduced to it (slow-motion phone clips: 120/240 fps). */
export const VIDEO_MAX_FPS = 60;
/** Frames decoded, swapped and written between two progress reports. */
const BATCH_SIZE = 8;
/** JPEG quality (ffmpeg's -q:v scale, 2 = best practical) of the extracted frames. */
const EXTRACT_QSCALE = 2;
/** JPEG quality (sharp) of the swapped frames written back. */
const FRAME_JPEG_QUALITY = 95;
/** x264 settings of the result. */
const X264_PRESET = 'veryfast';
const X264_CRF = 20;
const AAC_BITRATE = '160k';

const PROGRESS = { extracted: 0.1, swapped: 0.9 } as const;

// every ffmpeg and ffprobe this module starts runs under the decoders' memory ceiling
ffmpeg.setFfmpegPath(CAPPED_FFMPEG);
ffmpeg.setFfprobePath(CAPPED_FFPROBE);

/**
 * Measures a video with ffprobe: duration, displayed size, frame rate and count, audio. A file
 * ffprobe cannot read, or without a video stream, is refused with EngineInputError('bad_request',
 * JobMessages.badVideo). When the container does not state the duration (WebM from MediaRecorder),
 * the packets' timestamps are read to the end.
 */
export async function probeVideo(videoPath: string): Promise<VideoInfo> {
  let data: ffmpeg.FfprobeData;
  try {
    data = await new Promise<ffmpeg.FfprobeData>((resolve, reject) =>
      ffmpeg.ffprobe(videoPath, (error: unknown, result) => (error ? reject(error) : resolve(result))),
    );
  } catch (error) {
    throw new EngineInputError('bad_request', JobMessages.badVideo, { cause: error });
  }
  const video = data.streams.find((s) => s.codec_type === 'video' && !s.disposition?.attached_pic);
  const audio = data.streams.find((s) => s.codec_type === 'audio');
  if (!video || !positive(video.width) || !positive(video.height)) {
    throw new EngineInputError('bad_request', JobMessages.badVideo);
  }
  let durationSeconds = firstPositive(data.format.duration, video.duration);
  let frames = firstPositive(video.nb_frames);
  let fps = firstPositive(rational(video.avg_frame_rate));
  if (!durationSeconds) {
    const scanned = await scanPackets(videoPath);
    durationSeconds = scanned.durationSeconds;
    frames ??= scanned.packets;
  }
  if (!durationSeconds) throw new EngineInputError('bad_request', JobMessages.badVideo);
  if (!fps && frames) fps = frames / durationSeconds;
  fps ??= firstPositive(rational(video.r_frame_rate));
  if (!fps) throw new EngineInputError('bad_request', JobMessages.badVideo);
  frames ??= Math.max(1, Math.round(durationSeconds * fps));
  const rotation = normaliseRotation(Number(video.rotation ?? video.tags?.rotate ?? 0));
  const sideways = rotation === 90 || rotation === 270;
  return {
    durationSeconds,
    width: sideways ? video.height! : video.width!,
    height: sideways ? video.width! : video.height!,
    fps,
    hasAudio: !!audio,
    frames,
    videoCodec: video.codec_name ?? 'unknown',
    audioCodec: audio?.codec_name,
    rotation,
  };
}

export interface VideoFaceSwapOptions {
  faces: FaceAnalyzer;
  tuning?: SwapTuning;
  logger?: EngineLogger;
  /** Where the temporary frame folders go; default: the OS's temp folder. */
  tempDir?: string;
}

export interface VideoFaceSwapResult {
  /** The input, as measured. */
  input: VideoInfo;
  width: number;
  height: number;
  frames: number;
  /** Frames in which a face was found and replaced. */
  swappedFrames: number;
  /** Frames kept as they were: no face found. */
  framesWithoutFace: number;
  /** Wall time of the whole job. */
  seconds: number;
}

/**
 * Puts the face of `request.face` onto the largest face of every frame of a video and writes an
 * H.264/AAC mp4 to `request.outputPath`:
 *
 * 1. probe (refuses videos over VIDEO_MAX_SECONDS) and find the source face, once;
 * 2. extract the frames (JPEG, scaled to fit 1024 px per side, even sides for H.264; same frames,
 *    frame rate capped at 60) into a temporary folder — progress 0–10 %;
 * 3. swap each frame with the image face swap and the source's landmarks, in batches; frames
 *    without a face stay as they are; no face in any frame is EngineInputError('no_face_target',
 *    JobMessages.noFaceVideo) — progress 10–90 %;
 * 4. encode (libx264 yuv420p, +faststart, the same frame rate) with the original audio (copied if
 *    AAC, else re-encoded to AAC), the source's metadata dropped and an "AI-generated" comment
 *    added — progress 90–100 %.
 *
 * `context.signal` kills the running ffmpeg; the temporary folder is removed in every case.
 */
export async function swapFaceInVideo(
  request: FaceSwapVideoRequest,
  options: VideoFaceSwapOptions,
  context: RunContext = {},
): Promise<VideoFaceSwapResult> {
  const started = Date.now();
  const logger = options.logger ?? silentLogger;
  // The source's occluders are judged on the source as warped onto each frame's mesh, so their
  // mask moves a little from frame to frame: the jitter bench read 1.80 px with them against 1.74
  // px without (the clip's own: 1.72). Video leaves them out.
  const tuning = { ...(options.tuning ?? DEFAULT_SWAP_TUNING), sourceOccluders: 0 };
  const { signal } = context;
  const progress = (fraction: number) => context.onProgress?.(Math.min(1, Math.max(0, fraction)));
  progress(0);

  const input = await probeVideo(request.videoPath);
  if (isVideoTooLong(input.durationSeconds)) {
    throw new EngineInputError('bad_request', JobMessages.videoTooLong);
  }
  if (isVideoFrameTooLarge(input)) throw new EngineInputError('bad_request', JobMessages.videoFrameTooLarge);
  const source = await decodeRgb(request.face);
  signal?.throwIfAborted();
  // The face image is searched as the image swap searches it (tiles: small faces too).
  const sourceFace = (await options.faces.detectAnySize(source))[request.sourceFace ?? 0];
  if (!sourceFace) throw new EngineInputError('no_face_source', JobMessages.noFaceSource);
  // The person to replace: the chosen face of the first frame with faces, then followed from frame
  // to frame (the nearest face to where it was), so the swap never jumps to someone else.
  let tracked: Box | undefined;
  signal?.throwIfAborted();

  const { width, height } = outputSize(input.width, input.height);
  const fps = Math.min(input.fps, VIDEO_MAX_FPS);
  const temp = await mkdtemp(path.join(options.tempDir ?? os.tmpdir(), 'studio-video-'));
  try {
    const framesDir = path.join(temp, 'frames');
    await mkdir(framesDir);
    await runFfmpeg(
      ffmpeg(request.videoPath)
        .outputOptions(...frameOptions(input))
        .output(path.join(framesDir, '%06d.jpg')),
      signal,
      (frames) => progress(PROGRESS.extracted * Math.min(1, frames / input.frames)),
    );
    const files = (await readdir(framesDir)).filter((f) => f.endsWith('.jpg')).sort();
    if (files.length === 0) throw new EngineInputError('bad_request', JobMessages.badVideo);
    progress(PROGRESS.extracted);

    let swappedFrames = 0;
    for (let start = 0; start < files.length; start += BATCH_SIZE) {
      signal?.throwIfAborted();
      const batch = files.slice(start, start + BATCH_SIZE).map((f) => path.join(framesDir, f));
      const decoded = await Promise.all(batch.map(async (file) => decodeRgb(await readFile(file))));
      // Swapped frames are written back while the next ones are detected; the writes are awaited
      // before the next batch, and before the temporary folder goes if anything fails.
      const writes: Promise<unknown>[] = [];
      let failure: { error: unknown } | undefined;
      try {
        for (let i = 0; i < batch.length; i++) {
          signal?.throwIfAborted(); // per frame: a batch takes seconds, a cancel must stop within one
          const faces = await options.faces.detectRgb(decoded[i]);
          const targetFace = tracked ? nearestFace(faces, tracked) : faces[request.targetFace ?? 0];
          if (!targetFace) continue; // the frame stays as extracted
          tracked = targetFace.box;
          const swapped = await swapFace(source, sourceFace, decoded[i], targetFace, tuning);
          writes.push(fromRgb(swapped).jpeg({ quality: FRAME_JPEG_QUALITY }).toFile(batch[i]));
          swappedFrames++;
        }
      } catch (error) {
        failure = { error };
      }
      const written = await Promise.allSettled(writes);
      if (failure) throw failure.error;
      for (const write of written) if (write.status === 'rejected') throw write.reason;
      progress(
        PROGRESS.extracted +
          ((PROGRESS.swapped - PROGRESS.extracted) * (start + batch.length)) / files.length,
      );
    }
    if (swappedFrames === 0) throw new EngineInputError('no_face_target', JobMessages.noFaceVideo);
    signal?.throwIfAborted();

    const encoded = path.join(temp, 'out.mp4');
    const command = ffmpeg()
      .input(path.join(framesDir, '%06d.jpg'))
      .inputOptions('-framerate', `${fps}`, '-start_number', '1');
    const audio: string[] = [];
    if (input.hasAudio) {
      command.input(request.videoPath);
      audio.push(
        '-map',
        '1:a:0',
        '-c:a',
        ...(input.audioCodec === 'aac' ? ['copy'] : ['aac', '-b:a', AAC_BITRATE]),
      );
    }
    await runFfmpeg(
      command
        .outputOptions(
          ...['-map', '0:v:0', ...audio, '-c:v', 'libx264', '-preset', X264_PRESET, '-crf', `${X264_CRF}`],
          ...['-pix_fmt', 'yuv420p', '-movflags', '+faststart'],
          ...[
            '-map_metadata',
            '-1',
            '-map_chapters',
            '-1',
            '-metadata',
            `comment=${AI_GENERATED_VIDEO_COMMENT}`,
          ],
        )
        .output(encoded),
      signal,
      (frames) => progress(PROGRESS.swapped + (1 - PROGRESS.swapped) * Math.min(0.99, frames / files.length)),
    );
    await moveFile(encoded, request.outputPath);
    progress(1);
    const result: VideoFaceSwapResult = {
      input,
      width,
      height,
      frames: files.length,
      swappedFrames,
      framesWithoutFace: files.length - swappedFrames,
      seconds: (Date.now() - started) / 1000,
    };
    logger.log(
      `Video face swap: ${result.frames} frames at ${width}x${height} (${result.framesWithoutFace} without a ` +
        `face) of ${input.durationSeconds.toFixed(1)} s in ${result.seconds.toFixed(1)} s`,
    );
    return result;
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}

/** ffmpeg output options of the frames as the swap processes them (the check's first frame too). */
function frameOptions(input: VideoInfo): string[] {
  const { width, height } = outputSize(input.width, input.height);
  const filters = [`scale=${width}:${height}`, 'setsar=1'];
  if (input.fps > VIDEO_MAX_FPS) filters.push(`fps=${VIDEO_MAX_FPS}`);
  return [
    ...['-map', '0:v:0', '-an', '-sn', '-dn', '-vf', filters.join(',')],
    ...['-fps_mode', input.fps > VIDEO_MAX_FPS ? 'cfr' : 'passthrough', '-q:v', `${EXTRACT_QSCALE}`],
  ];
}

/**
 * The first frame of a video (JPEG), extracted exactly as the swap extracts its frames (same size,
 * filters and quality), so the faces found in it are those the swap chooses from. ffmpeg runs as
 * a child process.
 */
export async function extractFirstFrame(
  videoPath: string,
  input: VideoInfo,
  options: { tempDir?: string; signal?: AbortSignal } = {},
): Promise<Buffer> {
  const temp = await mkdtemp(path.join(options.tempDir ?? os.tmpdir(), 'studio-frame-'));
  try {
    const file = path.join(temp, 'first.jpg');
    // A video ffprobe reads but ffmpeg cannot decode is the sender's, not a server fault.
    const unreadable = (error: unknown) => {
      if (options.signal?.aborted) throw error;
      throw new EngineInputError('bad_request', JobMessages.badVideo, { cause: error });
    };
    await runFfmpeg(
      ffmpeg(videoPath)
        .outputOptions(...frameOptions(input), '-frames:v', '1')
        .output(file),
      options.signal,
      () => undefined,
    ).catch(unreadable);
    return await readFile(file).catch(unreadable);
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}

/**
 * `count` frames spread evenly over a video (JPEG, at the size the swap works at), the first one
 * included: what the content check looks at in a video output. ffmpeg runs as a child process.
 * A file ffprobe or ffmpeg cannot read is refused with EngineInputError('bad_request').
 */
export async function sampleFrames(
  videoPath: string,
  count: number,
  options: { tempDir?: string; signal?: AbortSignal } = {},
): Promise<Buffer[]> {
  const input = await probeVideo(videoPath);
  const temp = await mkdtemp(path.join(options.tempDir ?? os.tmpdir(), 'studio-frames-'));
  try {
    const { width, height } = outputSize(input.width, input.height);
    // every step-th decoded frame: 0, step, 2·step ... (the count ffprobe gave may be an estimate)
    const step = Math.max(1, Math.floor(input.frames / count));
    const filters = [`select=not(mod(n\\,${step}))`, `scale=${width}:${height}`, 'setsar=1'];
    await runFfmpeg(
      ffmpeg(videoPath)
        .outputOptions(
          ...['-map', '0:v:0', '-an', '-sn', '-dn', '-vf', filters.join(',')],
          ...['-fps_mode', 'vfr', '-frames:v', String(count), '-q:v', `${EXTRACT_QSCALE}`],
        )
        .output(path.join(temp, 'frame-%03d.jpg')),
      options.signal,
      () => undefined,
    ).catch((error: unknown) => {
      if (options.signal?.aborted) throw error;
      throw new EngineInputError('bad_request', JobMessages.badVideo, { cause: error });
    });
    const files = (await readdir(temp)).filter((name) => name.endsWith('.jpg')).sort();
    if (files.length === 0) throw new EngineInputError('bad_request', JobMessages.badVideo);
    return await Promise.all(files.map((name) => readFile(path.join(temp, name))));
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}

/** The size the frames are processed at: scaled down to fit MAX_SIDE, both sides even. */
export function outputSize(width: number, height: number): { width: number; height: number } {
  const scale = Math.min(1, MAX_SIDE / Math.max(width, height));
  const even = (v: number) => Math.max(2, 2 * Math.round((v * scale) / 2));
  return { width: even(width), height: even(height) };
}

/**
 * Runs a prepared ffmpeg command to its end (exported for tests). `onFrames` gets the number of frames written so far;
 * an abort kills ffmpeg and rejects with the signal's reason.
 */
export function runFfmpeg(
  command: ffmpeg.FfmpegCommand,
  signal: AbortSignal | undefined,
  onFrames: (frames: number) => void,
): Promise<void> {
  signal?.throwIfAborted();
  return new Promise<void>((resolve, reject) => {
    const abort = () => command.kill('SIGKILL');
    signal?.addEventListener('abort', abort, { once: true });
    command
      .outputOptions('-nostdin')
      .on('progress', (p: { frames?: number }) => {
        if (positive(p.frames)) onFrames(p.frames);
      })
      .on('error', (error: Error, _stdout: string | null, stderr: string | null) => {
        signal?.removeEventListener('abort', abort);
        if (signal?.aborted) return reject(signal.reason);
        const tail = (stderr ?? '').trim().split('\n').slice(-5).join('\n');
        reject(new Error(`ffmpeg failed: ${error.message}${tail ? `\n${tail}` : ''}`, { cause: error }));
      })
      .on('end', () => {
        signal?.removeEventListener('abort', abort);
        resolve();
      })
      .run();
  });
}

/**
 * Duration and packet count of the first video stream from its packets' timestamps (for containers
 * that do not state a duration). Demuxing only: fast even for long files.
 */
async function scanPackets(videoPath: string): Promise<{ durationSeconds?: number; packets?: number }> {
  const args = ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'packet=pts_time,duration_time'];
  try {
    const { stdout } = await promisify(execFile)(CAPPED_FFPROBE, [...args, '-of', 'csv=p=0', videoPath], {
      maxBuffer: 64 * 1024 * 1024,
    });
    let first = Infinity;
    let end = -Infinity;
    let packets = 0;
    for (const line of stdout.split('\n')) {
      const [pts, duration] = line.split(',').map(Number);
      if (!Number.isFinite(pts)) continue;
      packets++;
      first = Math.min(first, pts);
      end = Math.max(end, pts + (Number.isFinite(duration) ? duration : 0));
    }
    return packets ? { durationSeconds: end - first, packets } : {};
  } catch {
    return {};
  }
}

async function moveFile(from: string, to: string): Promise<void> {
  await mkdir(path.dirname(to), { recursive: true });
  try {
    await rename(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    await copyFile(from, to); // another file system
    await unlink(from);
  }
}

/** "30000/1001" or "25" → number; undefined when not a positive finite number. */
function rational(value: string | number | undefined): number | undefined {
  if (value === undefined) return undefined;
  const [num, den = '1'] = String(value).split('/');
  return firstPositive(Number(num) / Number(den));
}

function firstPositive(...values: unknown[]): number | undefined {
  for (const value of values) {
    const n = Number(value);
    if (Number.isFinite(n) && n > 0) return n;
  }
  return undefined;
}

function positive(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}

function normaliseRotation(degrees: number): number {
  if (!Number.isFinite(degrees)) return 0;
  return (((Math.round(degrees / 90) * 90) % 360) + 360) % 360;
}

/** The face whose box centre is nearest to `last`'s, if within one face size of it. */
export function nearestFace(faces: DetectedFace[], last: Box): DetectedFace | undefined {
  const [lx, ly] = [last[0] + last[2] / 2, last[1] + last[3] / 2];
  let best: DetectedFace | undefined;
  let bestDistance = Math.max(last[2], last[3]);
  for (const face of faces) {
    const [x, y, w, h] = face.box;
    const distance = Math.hypot(x + w / 2 - lx, y + h / 2 - ly);
    if (distance <= bestDistance) {
      best = face;
      bestDistance = distance;
    }
  }
  return best;
}
