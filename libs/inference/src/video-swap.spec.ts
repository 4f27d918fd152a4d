import { execFile, spawn } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import ffmpeg from 'fluent-ffmpeg';
import sharp from 'sharp';
import { JobMessages } from '@studio/contracts';
import { EngineInputError } from './engine.port';
import { FaceAnalyzer } from './face-analyzer';
import { AI_GENERATED_MARK } from './provenance';
import { fixture } from './spec-helpers';
import {
  AI_GENERATED_VIDEO_COMMENT,
  isVideoTooLong,
  extractFirstFrame,
  probeVideo,
  runFfmpeg,
  sampleFrames,
  swapFaceInVideo,
} from './video-swap';

jest.setTimeout(180_000);

const run = promisify(execFile);
const fixturePath = (name: string) => path.join(__dirname, '..', 'fixtures', name);

function ffprobe(file: string): Promise<ffmpeg.FfprobeData> {
  return new Promise((resolve, reject) =>
    ffmpeg.ffprobe(file, (error: unknown, data) => (error ? reject(error) : resolve(data))),
  );
}

describe('video face swap', () => {
  const faces = new FaceAnalyzer();
  let dir: string;
  /** 3 s, 10 fps, 384x384: a crop of cgi-model-22 that pans across her face, with a 440 Hz tone. */
  let clip: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'video-swap-spec-'));
    clip = path.join(dir, 'clip.mp4');
    await run('ffmpeg', [
      ...['-v', 'error', '-loop', '1', '-framerate', '10', '-i', fixturePath('cgi-model-22.jpg')],
      ...['-f', 'lavfi', '-i', 'sine=frequency=440:duration=3'],
      ...['-filter_complex', "[0:v]crop=640:640:'130+t*25':'90+t*15',scale=384:384,format=yuv420p[v]"],
      ...['-map', '[v]', '-map', '1:a', '-t', '3', '-r', '10'],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-c:a', 'aac', '-y', clip],
    ]);
    await faces.load();
  });

  afterAll(async () => {
    await faces.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('measures a video with ffprobe', async () => {
    const info = await probeVideo(clip);
    expect(info).toMatchObject({ width: 384, height: 384, fps: 10, hasAudio: true, frames: 30 });
    expect(info.durationSeconds).toBeCloseTo(3, 1);
    expect(isVideoTooLong(info.durationSeconds)).toBe(false);
    expect(isVideoTooLong(30.2)).toBe(false);
    expect(isVideoTooLong(31)).toBe(true);

    const notVideo = path.join(dir, 'not-a-video.mp4');
    await writeFile(notVideo, 'hello');
    await expect(probeVideo(notVideo)).rejects.toEqual(
      new EngineInputError('bad_request', JobMessages.badVideo),
    );
    await expect(probeVideo(path.join(dir, 'missing.mp4'))).rejects.toMatchObject({ code: 'bad_request' });
  });

  it('samples frames spread over a video, the first one included, and refuses a file that is not one', async () => {
    const frames = await sampleFrames(clip, 4);
    expect(frames).toHaveLength(4);
    const pixels = await Promise.all(
      frames.map((frame) => sharp(frame).raw().toBuffer({ resolveWithObject: true })),
    );
    for (const { info } of pixels) expect([info.width, info.height]).toEqual([384, 384]);
    // Mean absolute difference per channel between two frames (the clip pans: later frames differ).
    const distance = (a: Buffer, b: Buffer) =>
      a.reduce((sum, v, i) => sum + Math.abs(v - b[i]), 0) / a.length;
    const first = await sharp(await extractFirstFrame(clip, await probeVideo(clip)))
      .raw()
      .toBuffer();
    expect(distance(pixels[0].data, first)).toBeLessThan(1);
    for (let i = 1; i < 4; i++) expect(distance(pixels[i].data, pixels[i - 1].data)).toBeGreaterThan(2);
    // frames 0, 7, 14, 21 of 30: the pan's last sample is far from its first
    expect(distance(pixels[3].data, pixels[0].data)).toBeGreaterThan(
      distance(pixels[1].data, pixels[0].data),
    );

    const notVideo = path.join(dir, 'not-a-video.mp4');
    await writeFile(notVideo, 'not really an mp4');
    const refusal = sampleFrames(notVideo, 4);
    await expect(refusal).rejects.toBeInstanceOf(EngineInputError);
    await expect(refusal).rejects.toThrow(JobMessages.badVideo);
  });

  it('measures a WebM without a stated duration from its packets', async () => {
    // Written to a pipe, the Matroska muxer cannot go back to write the duration (like MediaRecorder).
    const webm = path.join(dir, 'streamed.webm');
    const child = spawn('ffmpeg', [
      ...['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=64x64:rate=5:duration=2'],
      ...['-c:v', 'libvpx', '-b:v', '100k', '-f', 'webm', 'pipe:1'],
    ]);
    child.stdout.pipe(createWriteStream(webm));
    await new Promise((resolve, reject) => child.on('close', resolve).on('error', reject));
    const stated = (await ffprobe(webm)).format.duration;
    const info = await probeVideo(webm);
    console.log(`streamed webm: stated duration ${stated}, measured ${info.durationSeconds} s`);
    expect(info.durationSeconds).toBeGreaterThan(1.7);
    expect(info.durationSeconds).toBeLessThan(2.3);
    expect(info).toMatchObject({ width: 64, height: 64, hasAudio: false });
  });

  it('puts the face onto every frame, keeps the frames, timing and audio, and marks the result', async () => {
    const output = path.join(dir, 'out', 'swapped.mp4');
    const progress: number[] = [];
    const result = await swapFaceInVideo(
      { videoPath: clip, face: fixture('ai-face.jpg'), outputPath: output },
      { faces },
      { onProgress: (f) => progress.push(f) },
    );
    const perSecond = result.seconds / result.input.durationSeconds;
    console.log(
      `video swap: ${result.frames} frames ${result.width}x${result.height}, ${result.framesWithoutFace} ` +
        `without a face, ${result.seconds.toFixed(1)} s = ${perSecond.toFixed(2)} s per video second`,
    );
    expect(result).toMatchObject({ width: 384, height: 384, frames: 30 });
    expect(result.swappedFrames).toBeGreaterThanOrEqual(27);
    expect(progress[0]).toBe(0);
    expect(progress.at(-1)).toBe(1);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(progress.some((f) => f > 0.1 && f < 0.9)).toBe(true);

    expect(existsSync(output)).toBe(true);
    const probe = await ffprobe(output);
    const video = probe.streams.find((s) => s.codec_type === 'video')!;
    const audio = probe.streams.find((s) => s.codec_type === 'audio');
    expect(video).toMatchObject({ codec_name: 'h264', pix_fmt: 'yuv420p', width: 384, height: 384 });
    expect(Number(video.nb_frames)).toBe(30);
    expect(Number(probe.format.duration)).toBeGreaterThan(2.8);
    expect(Number(probe.format.duration)).toBeLessThan(3.2);
    expect(audio).toMatchObject({ codec_name: 'aac' });
    expect(Math.abs(Number(audio!.duration) - 3)).toBeLessThan(0.2);
    expect(probe.format.tags?.comment).toBe(AI_GENERATED_VIDEO_COMMENT);
    expect(String(probe.format.tags?.comment)).toContain(AI_GENERATED_MARK);

    // The middle frame: the face is replaced (another identity, nearer the source's), the rest of the
    // frame is the clip's up to compression noise.
    const frame = path.join(dir, 'frame.png');
    const original = path.join(dir, 'original.png');
    const frameAt = (file: string, to: string) =>
      run('ffmpeg', ['-v', 'error', '-i', file, '-vf', 'select=eq(n\\,15)', '-frames:v', '1', '-y', to]);
    await Promise.all([frameAt(output, frame), frameAt(clip, original)]);
    const [swappedPng, originalPng] = await Promise.all([readFile(frame), readFile(original)]);
    const source = await faces.embedding(fixture('ai-face.jpg'));
    const before = await faces.embedding(originalPng);
    const after = await faces.embedding(swappedPng);
    console.log(
      `middle frame: swapped-original ${faces.distance(after, before).toFixed(2)}, swapped-source ` +
        `${faces.distance(after, source).toFixed(2)}, original-source ${faces.distance(before, source).toFixed(2)}`,
    );
    expect(faces.distance(after, before)).toBeGreaterThan(3.5);
    expect(faces.distance(after, source)).toBeLessThan(faces.distance(before, source) - 1);

    const [face] = (await faces.detect(originalPng)).faces;
    const [x, y, w, h] = face.box;
    /** Whether a pixel is in the face box scaled about its centre by `k`. */
    const inBox = (px: number, py: number, k: number) =>
      Math.abs(px - (x + w / 2)) < (k * w) / 2 && Math.abs(py - (y + h / 2)) < (k * h) / 2;
    const [a, b] = await Promise.all([rawRgb(swappedPng), rawRgb(originalPng)]);
    let [inside, outside, insideCount, outsideCount] = [0, 0, 0, 0];
    for (let i = 0; i < a.length; i++) {
      const [px, py] = [Math.floor(i / 3) % 384, Math.floor(i / 3 / 384)];
      const d = Math.abs(a[i] - b[i]);
      if (inBox(px, py, 0.6)) [inside, insideCount] = [inside + d, insideCount + 1];
      else if (!inBox(px, py, 1.6)) [outside, outsideCount] = [outside + d, outsideCount + 1];
    }
    const [meanInside, meanOutside] = [inside / insideCount, outside / outsideCount];
    console.log(
      `middle frame: mean difference in the middle of the face ${meanInside.toFixed(1)}, ` +
        `away from it ${meanOutside.toFixed(1)}`,
    );
    expect(meanInside).toBeGreaterThan(3 * meanOutside);
    expect(meanOutside).toBeLessThan(3);
  });

  it('refuses a video over 30 seconds before any work', async () => {
    const long = path.join(dir, 'long.mp4');
    await run('ffmpeg', [
      ...['-v', 'error', '-f', 'lavfi', '-i', 'color=c=gray:size=64x64:rate=1:duration=31'],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-y', long],
    ]);
    expect((await probeVideo(long)).durationSeconds).toBeCloseTo(31, 0);
    // Before any work: no face was looked for (no frame decoded, not even the source face's).
    let faceWork = 0;
    const watched = new Proxy(faces, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver);
        return typeof value === 'function'
          ? (...args: unknown[]) => {
              faceWork += 1;
              return value.apply(target, args);
            }
          : value;
      },
    });
    const swap = swapFaceInVideo(
      { videoPath: long, face: fixture('ai-face.jpg'), outputPath: path.join(dir, 'long-out.mp4') },
      { faces: watched },
    );
    await expect(swap).rejects.toEqual(new EngineInputError('bad_request', JobMessages.videoTooLong));
    expect(JobMessages.videoTooLong).toBe('Max video length is 30 seconds.');
    expect(faceWork).toBe(0);
    expect(existsSync(path.join(dir, 'long-out.mp4'))).toBe(false);
  });

  it('fails when no frame has a face, and cleans its temporary frames', async () => {
    const noFace = path.join(dir, 'no-face.mp4');
    await run('ffmpeg', [
      ...['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=96x96:rate=5:duration=1'],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-y', noFace],
    ]);
    const tempDir = path.join(dir, 'temp-no-face');
    await mkdir(tempDir);
    const swap = swapFaceInVideo(
      { videoPath: noFace, face: fixture('ai-face.jpg'), outputPath: path.join(dir, 'no-face-out.mp4') },
      { faces, tempDir },
    );
    await expect(swap).rejects.toEqual(new EngineInputError('no_face_target', JobMessages.noFaceVideo));
    expect(await readdir(tempDir)).toEqual([]);

    const noSource = swapFaceInVideo(
      { videoPath: clip, face: await blank(), outputPath: path.join(dir, 'no-source-out.mp4') },
      { faces },
    );
    await expect(noSource).rejects.toMatchObject({
      code: 'no_face_source',
      message: JobMessages.noFaceSource,
    });
  });

  it('stops when cancelled, kills ffmpeg and leaves nothing behind', async () => {
    const tempDir = path.join(dir, 'temp-cancel');
    await mkdir(tempDir);
    const output = path.join(dir, 'cancelled.mp4');
    const controller = new AbortController();
    const swap = swapFaceInVideo(
      { videoPath: clip, face: fixture('ai-face.jpg'), outputPath: output },
      { faces, tempDir },
      { signal: controller.signal, onProgress: (f) => f > 0.1 && controller.abort() },
    );
    await expect(swap).rejects.toMatchObject({ name: 'AbortError' });
    expect(await readdir(tempDir)).toEqual([]);
    expect(existsSync(output)).toBe(false);
  });

  it('kills a running ffmpeg when cancelled', async () => {
    // 60 s of video read at its own pace (-re): only a kill ends it early.
    const command = ffmpeg()
      .input('testsrc=size=64x64:rate=5:duration=60')
      .inputOptions('-re', '-f', 'lavfi')
      .outputOptions('-f', 'null')
      .output('-');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 500);
    const started = Date.now();
    await expect(runFfmpeg(command, controller.signal, () => undefined)).rejects.toMatchObject({
      name: 'AbortError',
    });
    // The video lasts 60 s at its own pace: ending before that takes the kill.
    expect(Date.now() - started).toBeLessThan(60_000);
  });
});

async function rawRgb(png: Buffer): Promise<Buffer> {
  return sharp(png).removeAlpha().raw().toBuffer();
}

/** A plain grey JPEG (no face). */
function blank(): Promise<Buffer> {
  return sharp({ create: { width: 128, height: 128, channels: 3, background: '#888888' } })
    .jpeg()
    .toBuffer();
}
