/**
 * npm run bench -- moderation: the content check (issue 37) on the project's neutral images, beside
 * the work it guards. Per image: nsfwjs' classification time and the face-age pass (face search and
 * Human's faceres age per face), beside the face swap of that image onto the next one (the job the
 * check stands in front of). Images: the test faces (../shared/testdata/faces or BENCH_FACES_DIR),
 * each also re-encoded (JPEG q40, WebP q50, half size), plus test patterns (gradient, checkerboard,
 * colour bars) and noise. Counts: how many are classified sexual (goal: none) and how many adult test
 * faces the under-18 rule would hold, at the default policy. Then a video face swap's result, checked
 * by frames sampled from it. Runs on the engine pool (one thread), as the studio does; no services.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import {
  DEFAULT_SAFETY_POLICY,
  hasMinorFace,
  isSexual,
  sexualScore,
  VIDEO_FRAMES_CHECKED,
} from '@studio/contracts';
import { PooledCpuEngine, sampleFrames } from '@studio/inference';

const ROOT = path.resolve(__dirname, '..', '..');
const FACES_DIR = process.env.BENCH_FACES_DIR ?? path.resolve(ROOT, '..', 'shared', 'testdata', 'faces');

async function patterns(): Promise<[string, Buffer][]> {
  const side = 512;
  const gradient = Buffer.alloc(side * side * 3);
  const checker = Buffer.alloc(side * side * 3);
  const bars = Buffer.alloc(side * side * 3);
  const colours = [
    [255, 255, 255],
    [255, 255, 0],
    [0, 255, 255],
    [0, 255, 0],
    [255, 0, 255],
    [255, 0, 0],
    [0, 0, 255],
    [0, 0, 0],
  ];
  for (let y = 0; y < side; y++) {
    for (let x = 0; x < side; x++) {
      const i = (y * side + x) * 3;
      gradient.set([(x / side) * 255, (y / side) * 255, 128], i);
      checker.fill(((x >> 5) + (y >> 5)) % 2 ? 255 : 0, i, i + 3);
      bars.set(colours[Math.floor((x / side) * colours.length)], i);
    }
  }
  const png = (data: Buffer) =>
    sharp(data, { raw: { width: side, height: side, channels: 3 } })
      .png()
      .toBuffer();
  return [
    ['pattern: gradient', await png(gradient)],
    ['pattern: checkerboard', await png(checker)],
    ['pattern: colour bars', await png(bars)],
    ['noise', await png(randomBytes(side * side * 3))],
  ];
}

async function main(): Promise<void> {
  const faces = readdirSync(FACES_DIR)
    .filter((name) => /\.(jpe?g|png|webp)$/i.test(name))
    .sort();
  const images: { name: string; face: boolean; data: Buffer }[] = [];
  for (const name of faces) {
    const data = readFileSync(path.join(FACES_DIR, name));
    const { width = 0 } = await sharp(data).metadata();
    images.push({ name, face: true, data });
    images.push({
      name: `${name} q40`,
      face: true,
      data: await sharp(data).jpeg({ quality: 40 }).toBuffer(),
    });
    images.push({
      name: `${name} webp`,
      face: true,
      data: await sharp(data).webp({ quality: 50 }).toBuffer(),
    });
    images.push({
      name: `${name} half`,
      face: true,
      data: await sharp(data)
        .resize(Math.round(width / 2))
        .jpeg({ quality: 85 })
        .toBuffer(),
    });
  }
  for (const [name, data] of await patterns()) images.push({ name, face: false, data });

  const engine = new PooledCpuEngine({ size: 1 });
  let started = performance.now();
  await engine.warmup();
  // The first check loads nsfwjs in the thread: timed apart.
  await engine.inspectContent({ images: [images[0].data] });
  console.log(`engine pool warm-up ${Math.round(performance.now() - started)} ms (models), nsfwjs loaded`);

  console.log('\nimage | porn+hentai | sexy | faces (age) | classify ms | face-age ms | face swap ms (job)');
  let sexual = 0;
  let held = 0;
  let facesSeen = 0;
  const classifyMs: number[] = [];
  const agesMs: number[] = [];
  const swapMs: number[] = [];
  for (const [i, image] of images.entries()) {
    const [report] = await engine.inspectContent({ images: [image.data] });
    let swap = '';
    if (image.face && image.name.endsWith('.jpg')) {
      const onto = images.find((other, j) => j > i && other.face && other.name.endsWith('.jpg')) ?? images[0];
      started = performance.now();
      const ok = await engine.faceSwap({ face: image.data, target: onto.data }).then(
        () => true,
        () => false,
      );
      const ms = Math.round(performance.now() - started);
      swapMs.push(ms);
      swap = `${ms}${ok ? '' : ' (no face)'}`;
    }
    if (isSexual(report, DEFAULT_SAFETY_POLICY)) sexual += 1;
    if (image.face) {
      facesSeen += report.faces.length;
      if (hasMinorFace(report, DEFAULT_SAFETY_POLICY)) held += 1;
    }
    classifyMs.push(report.timings.classifyMs);
    agesMs.push(report.timings.facesMs);
    console.log(
      [
        image.name,
        sexualScore(report.scores).toFixed(3),
        report.scores.sexy.toFixed(3),
        report.faces.map((face) => face.age).join(', ') || '-',
        report.timings.classifyMs,
        report.timings.facesMs,
        swap,
      ].join(' | '),
    );
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  const faceImages = images.filter((image) => image.face).length;
  console.log(
    `\n${images.length} images (${faceImages} of test faces and their re-encodes, ${images.length - faceImages} patterns and noise)`,
  );
  console.log(
    `classified sexual (porn + hentai >= ${DEFAULT_SAFETY_POLICY.sexualThreshold}): ${sexual} (goal: 0)`,
  );
  console.log(
    `adult test-face images the under-${DEFAULT_SAFETY_POLICY.minorAge} rule would hold: ${held} of ${faceImages} (${facesSeen} faces found)`,
  );
  console.log(
    `median per image: classify ${median(classifyMs)} ms, face-age pass ${median(agesMs)} ms; face swap (the job) ${median(swapMs)} ms`,
  );
  await videoOutputCheck(engine, images.find((image) => image.face)?.data ?? images[0].data);
  await engine.close();
}

/**
 * A video face swap's result is checked by VIDEO_FRAMES_CHECKED frames spread over it: the time to
 * sample them (ffmpeg) and classify them, beside the video swap itself, on a 3 s clip of a test face.
 */
async function videoOutputCheck(engine: PooledCpuEngine, face: Buffer): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-video-check-'));
  try {
    const clip = path.join(dir, 'clip.mp4');
    const faceFile = path.join(dir, 'face.png');
    writeFileSync(faceFile, await sharp(face).resize(320, 320, { fit: 'cover' }).png().toBuffer());
    execFileSync('ffmpeg', [
      ...['-v', 'error', '-loop', '1', '-framerate', '10', '-t', '3', '-i', faceFile],
      ...['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-y', clip],
    ]);
    let started = performance.now();
    const output = path.join(dir, 'swapped.mp4');
    await engine.faceSwapVideo({ videoPath: clip, face, outputPath: output });
    const swapMs = Math.round(performance.now() - started);
    started = performance.now();
    const frames = await sampleFrames(output, VIDEO_FRAMES_CHECKED);
    const sampleMs = Math.round(performance.now() - started);
    started = performance.now();
    const reports = await engine.inspectContent({ images: frames });
    const checkMs = Math.round(performance.now() - started);
    const worst = Math.max(...reports.map((report) => sexualScore(report.scores)));
    console.log(
      `\nvideo output check (3 s, 10 fps, 320 px): sample ${frames.length} frames ${sampleMs} ms + classify ` +
        `and face-age ${checkMs} ms, beside the video face swap ${swapMs} ms; worst porn+hentai ${worst.toFixed(3)}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
