/**
 * npm run bench -- jitter: does the video face swap flicker? A 3 s, 10 fps clip that pans across
 * a test face (cgi-model-22, as video-swap.spec.ts makes it) is swapped with another test face;
 * the face mesh is found in every frame of the clip and of the result, and the jitter is the RMS of
 * the landmarks' second differences between frames (their acceleration, in px; a steady pan has
 * none), over the face's 468 points. The result's jitter is given beside the clip's own.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { FaceAnalyzer, type Point } from '../../libs/inference/src/face-analyzer';
import { decodeRgb } from '../../libs/inference/src/image-io';
import { DEFAULT_SWAP_TUNING } from '../../libs/inference/src/face-swap';
import { LocalCpuEngine } from '../../libs/inference/src/local-engine';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '..', '..');
const FACES_DIR = process.env.BENCH_FACES_DIR ?? path.resolve(ROOT, '..', 'shared', 'testdata', 'faces');

async function meshes(video: string, dir: string, faces: FaceAnalyzer): Promise<(Point[] | null)[]> {
  const frames = await mkdtemp(path.join(dir, 'frames-'));
  await run('ffmpeg', ['-v', 'error', '-i', video, path.join(frames, '%04d.png')]);
  const out: (Point[] | null)[] = [];
  for (const file of (await readdir(frames)).sort()) {
    const [face] = await faces.detectRgb(await decodeRgb(await readFile(path.join(frames, file)), 4096));
    out.push(face ? face.landmarks : null);
  }
  return out;
}

/** RMS over points and frames of |p(t+1) - 2 p(t) + p(t-1)|, frames with a face on all three. */
function jitter(series: (Point[] | null)[]): { rms: number; frames: number } {
  let sum = 0;
  let n = 0;
  let frames = 0;
  for (let t = 1; t + 1 < series.length; t++) {
    const [a, b, c] = [series[t - 1], series[t], series[t + 1]];
    if (!a || !b || !c) continue;
    frames++;
    for (let k = 0; k < b.length; k++) {
      const x = c[k][0] - 2 * b[k][0] + a[k][0];
      const y = c[k][1] - 2 * b[k][1] + a[k][1];
      sum += x * x + y * y;
      n++;
    }
  }
  return { rms: Math.sqrt(sum / Math.max(n, 1)), frames };
}

async function main() {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'video-jitter-'));
  try {
    const clip = path.join(dir, 'clip.mp4');
    await run('ffmpeg', [
      ...['-v', 'error', '-loop', '1', '-framerate', '10', '-i', path.join(FACES_DIR, 'cgi-model-22.jpg')],
      ...['-filter_complex', "[0:v]crop=640:640:'130+t*25':'90+t*15',scale=384:384,format=yuv420p[v]"],
      ...['-map', '[v]', '-t', '3', '-r', '10', '-c:v', 'libx264', '-preset', 'ultrafast', '-y', clip],
    ]);
    // BENCH_SWAP_TUNING='{"sourceOccluders":0}': knobs of the swap to try, as the quality bench takes them.
    const engine = new LocalCpuEngine({
      swapTuning: { ...DEFAULT_SWAP_TUNING, ...JSON.parse(process.env.BENCH_SWAP_TUNING ?? '{}') },
    });
    const outputPath = path.join(dir, 'swapped.mp4');
    const started = Date.now();
    await engine.faceSwapVideo({
      videoPath: clip,
      face: await readFile(path.join(FACES_DIR, 'ai-face.jpg')),
      outputPath,
    });
    const ms = Date.now() - started;
    await engine.close();
    const faces = new FaceAnalyzer();
    const before = jitter(await meshes(clip, dir, faces));
    const after = jitter(await meshes(outputPath, dir, faces));
    await faces.close();
    console.log(
      `video face swap jitter (RMS landmark acceleration, px): clip ${before.rms.toFixed(2)} over ${before.frames} frames, ` +
        `swapped ${after.rms.toFixed(2)} over ${after.frames} frames; swap took ${ms} ms for 3 s`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
