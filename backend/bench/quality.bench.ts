/**
 * npm run bench -- quality: how the local CPU engine's outputs look, judged by tools it does not use
 * (backend/bench/quality-judge.py: dlib's face detector and face recogniser, PIL, numpy), beside the
 * time per image. No services.
 *
 * Face swap: every ordered pair of the faces of ../shared/testdata/faces, or of any folder given as
 * BENCH_FACES_DIR (BENCH_SWAP_PAIRS=next: each face onto the next only), swapped by each variant
 * (BENCH_SWAP_VARIANTS, see SWAP_VARIANTS: the engine as it is, as it was at the start of the last
 * change, the raw paste ceiling, the engine before issue 28) in the same run, so the noise of a
 * shared machine hits all. Per variant: swaps attempted, refused by
 * reason (and among the pairs in which dlib finds both faces), dlib face found in the output, median
 * dlib descriptor distance of the output to the source (d_src) and to the target (d_tgt; same person
 * below about 0.6), the share with d_src < 0.5 and d_tgt > 0.6, time per swap, outputs at the
 * target's size (BENCH_SWAP_DETAIL=1 lists every pair; BENCH_SWAP_TUNING='{"shape":1}' tries
 * knobs; BENCH_QUALITY_PARTS=swap or sr runs one part), and a seam figure: the largest excess
 * colour step (CIE76 ΔE, output minus target) between neighbouring rings around the target's face
 * oval (rings at 0.90..1.14 of the oval's radius, from its centre): a pasted edge shows as a step
 * the target did not have.
 *
 * Super resolution: each face scaled (never enlarged) to fit 512 px, halved with PIL's bicubic
 * (antialiased, the usual SR benchmark degradation), then upscaled 2x by the engine; PSNR and SSIM
 * against the original beside PIL's bicubic and Lanczos; and 4x of a 256 px image.
 *
 * Outputs land in BENCH_QUALITY_OUT (default .data/quality/current) for looking at.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { JobMessages } from '@studio/contracts';
import { LocalCpuEngine } from '../../libs/inference/src/local-engine';
import { DEFAULT_SWAP_TUNING, swapFace, yawOf, type SwapTuning } from '../../libs/inference/src/face-swap';
import { decodeRgb, fromRgb } from '../../libs/inference/src/image-io';
import { FACE_OVAL } from '../../libs/inference/src/geometry';
import { seamFigure } from '../../libs/inference/src/seam';

const ROOT = path.resolve(__dirname, '..', '..');
const FACES_DIR = process.env.BENCH_FACES_DIR ?? path.resolve(ROOT, '..', 'shared', 'testdata', 'faces');
const OUT = path.resolve(process.env.BENCH_QUALITY_OUT ?? path.join(ROOT, '.data', 'quality', 'current'));
const PYTHON = path.join(ROOT, '.tools', 'quality', 'bin', 'python');
const JUDGE = path.join(__dirname, 'quality-judge.py');

interface Raw {
  data: Buffer;
  width: number;
  height: number;
}

async function raw(image: Buffer | string): Promise<Raw> {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

const PAIRS = process.env.BENCH_SWAP_PAIRS ?? 'all';
/** BENCH_QUALITY_PARTS: 'swap', 'sr' or both (default). */
const PARTS = (process.env.BENCH_QUALITY_PARTS ?? 'swap,sr').split(',');

/** DEFAULT_SWAP_TUNING at the start of the session that added occluders and shading (commit 9579706). */
const SESSION_TUNING: SwapTuning = {
  expand: 0.12,
  erode: 0.04,
  feather: 0.025,
  statsErode: 0.05,
  colour: 1,
  stdRatio: [0.6, 1],
  poisson: true,
  expressionGap: 0.025,
  keepWeight: 0.85,
  forehead: 0.4,
  shape: 1,
  mirror: true,
  mirrorSides: false,
  boundaryOutlier: 0,
  occluders: 0,
  sourceOccluders: 0,
  shading: 0,
  shadingSigma: 0.08,
  highlights: 0,
};

/**
 * Swap variants, each run on every pair (BENCH_SWAP_VARIANTS, comma separated; default
 * before,now,raw): today = the engine before issue 28 (reproduced from its parts); before = the
 * engine with SESSION_TUNING; now = the engine as it is (with BENCH_SWAP_TUNING); raw = the
 * ceiling of this classical method, the source's pixels pasted as they are (warped onto the
 * source's shape, no colour transfer, no membrane, the whole forehead, the target's eyes and mouth
 * never kept). BENCH_SWAP_EXTRA='{"name":{...knobs}}' adds variants of the current engine with
 * other knobs (for sweeps in one run).
 */
const EXTRA_VARIANTS: Record<string, Partial<SwapTuning>> = JSON.parse(process.env.BENCH_SWAP_EXTRA ?? '{}');
const SWAP_VARIANTS = [
  ...(process.env.BENCH_SWAP_VARIANTS ?? 'before,now,raw').split(','),
  ...Object.keys(EXTRA_VARIANTS),
];
const RAW_PASTE: SwapTuning = {
  ...SESSION_TUNING,
  colour: 0,
  poisson: false,
  forehead: 1,
  expressionGap: Number.POSITIVE_INFINITY,
};

interface Swap {
  variant: string;
  source: string;
  target: string;
  output?: string;
  ms: number;
  seam: number | null;
  /** The output has the target's size. */
  fullSize: boolean;
  error?: string;
}

interface Judged {
  facesFound: number;
  sourceFaceFound: boolean;
  targetFaceFound: boolean;
  toSource: number | null;
  toTarget: number | null;
  sourceTarget: number | null;
}

/**
 * The local engine's face swap as it was before issue 28 (commit 9eb1b31), reproduced from its
 * parts: both images fitted within 1024 px, the largest face of each, refused when the yaw figures
 * differ by more than 0.45, the same swapFace with the tuning of that time.
 */
async function baselineSwap(engine: LocalCpuEngine, face: Buffer, target: Buffer) {
  const [source, onto] = await Promise.all([decodeRgb(face, 1024), decodeRgb(target, 1024)]);
  const [sourceFace] = await engine.faces.detectRgb(source);
  if (!sourceFace) throw new Error(JobMessages.noFaceSource);
  const [targetFace] = await engine.faces.detectRgb(onto);
  if (!targetFace) throw new Error(JobMessages.noFaceTarget);
  if (Math.abs(yawOf(sourceFace) - yawOf(targetFace)) > 0.45) throw new Error(JobMessages.posesDiffer);
  const swapped = await swapFace(source, sourceFace, onto, targetFace, BASELINE_TUNING);
  const data = await fromRgb(swapped).jpeg({ quality: 92 }).toBuffer();
  return { data, format: 'jpeg' as const, width: swapped.width, height: swapped.height };
}

/** DEFAULT_SWAP_TUNING as it was before issue 28: the session's start without the face's shape or the mirror. */
const BASELINE_TUNING: SwapTuning = { ...SESSION_TUNING, shape: 0, mirror: false };

const median = (values: number[]) => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** Refusal reasons in short. */
function reasonOf(error: string): string {
  if (error === JobMessages.noFaceSource) return 'no face in source';
  if (error === JobMessages.noFaceTarget) return 'no face in target';
  if (error === JobMessages.posesDiffer || /turned \d+° differently/.test(error)) return 'pose';
  return error.slice(0, 40);
}

function printSwaps(swaps: Swap[], judged: Judged[]) {
  console.log(
    'face swap: dlib descriptor distance of the output to the source (d_src) and the target (d_tgt); same person below ~0.6; ' +
      'seam: excess ΔE step at the face outline; variants (BENCH_SWAP_VARIANTS) run side by side in this run',
  );
  for (const variant of SWAP_VARIANTS) {
    const rows = swaps.map((s, i) => ({ s, j: judged[i] })).filter(({ s }) => s.variant === variant);
    if (process.env.BENCH_SWAP_DETAIL) {
      for (const { s, j } of rows) {
        const label = `${path.parse(s.source).name} -> ${path.parse(s.target).name}`.padEnd(32);
        console.log(
          `  ${variant.padEnd(5)} ${label} ${s.error !== undefined ? `refused: ${s.error}` : `d_src ${fmt(j.toSource)}  d_tgt ${fmt(j.toTarget)}  face ${j.facesFound > 0 ? 'yes' : 'NO '}  seam ${fmt(s.seam, 1)}  ${s.ms.toFixed(0)} ms`}`,
        );
      }
    }
    const bothSeen = rows.filter(({ j }) => j.sourceFaceFound && j.targetFaceFound);
    const refused = rows.filter(({ s }) => s.error !== undefined);
    const reasons = new Map<string, number>();
    for (const { s } of refused) reasons.set(reasonOf(s.error!), (reasons.get(reasonOf(s.error!)) ?? 0) + 1);
    const done = rows.filter(({ s }) => s.error === undefined);
    const measured = done.filter(({ j }) => j.toSource != null && j.toTarget != null);
    const identity = measured.filter(({ j }) => j.toSource! < 0.5 && j.toTarget! > 0.6);
    const pct = (n: number, of: number) => (of ? `${((100 * n) / of).toFixed(0)}%` : '-');
    console.log(
      `  ${variant.padEnd(5)} attempted ${rows.length}; refused ${refused.length} (${pct(refused.length, rows.length)}; ` +
        `${[...reasons].map(([r, n]) => `${r} ${n}`).join(', ') || 'none'}); refused where dlib sees both faces ` +
        `${bothSeen.filter(({ s }) => s.error !== undefined).length}/${bothSeen.length} (${pct(bothSeen.filter(({ s }) => s.error !== undefined).length, bothSeen.length)})`,
    );
    console.log(
      `        produced ${done.length}: face found in output ${done.filter(({ j }) => j.facesFound > 0).length}; ` +
        `median d_src ${fmt(median(measured.map(({ j }) => j.toSource!)))}, d_tgt ${fmt(median(measured.map(({ j }) => j.toTarget!)))}; ` +
        `d_src<0.5 and d_tgt>0.6: ${identity.length}/${measured.length} (${pct(identity.length, measured.length)}); ` +
        `closer to source than target ${measured.filter(({ j }) => j.toSource! < j.toTarget!).length}/${measured.length}; ` +
        `seam mean ${fmt(mean(done.filter(({ s }) => s.seam != null).map(({ s }) => s.seam!)), 1)}; ` +
        `${fmt(median(done.map(({ s }) => s.ms)), 0)} ms per swap (median); output at the target's size ${done.filter(({ s }) => s.fullSize).length}/${done.length}`,
    );
  }
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(values.length, 1);
const fmt = (v: number | null | undefined, digits = 2) => (v == null ? '  -  ' : v.toFixed(digits));

async function main() {
  mkdirSync(OUT, { recursive: true });
  const names = readdirSync(FACES_DIR)
    .filter((f) => /\.(jpe?g|png)$/i.test(f))
    .sort();
  // BENCH_SWAP_TUNING='{"shape":0.8}': knobs of the current engine's swap to try (SwapTuning).
  const nowTuning: SwapTuning = {
    ...DEFAULT_SWAP_TUNING,
    ...JSON.parse(process.env.BENCH_SWAP_TUNING ?? '{}'),
  };
  const engine = new LocalCpuEngine({ swapTuning: nowTuning });
  await engine.warmup();
  const tuningOf = (variant: string): SwapTuning =>
    variant === 'before'
      ? SESSION_TUNING
      : variant === 'raw'
        ? RAW_PASTE
        : { ...nowTuning, ...(EXTRA_VARIANTS[variant] ?? {}) };
  // The engine's own faceSwap (same decoding, search and judgement) with each variant's knobs: the
  // knobs are a private field of the engine, set here for the bench only.
  const setTuning = (tuning: SwapTuning) => {
    (engine as unknown as { swapTuning: SwapTuning }).swapTuning = tuning;
  };
  const seamFaces = new Map<
    string,
    Awaited<ReturnType<typeof engine.faces.detectAnySize>>[number] | undefined
  >();

  // Face swap: every ordered pair (BENCH_SWAP_PAIRS=next: each face onto the next only), by the
  // engine as it is and by today's engine (before issue 28) reproduced beside it in the same run.
  const pairs: [number, number][] = [];
  for (let i = 0; PARTS.includes('swap') && i < names.length; i++) {
    for (let j = 0; j < names.length; j++) {
      if (i === j) continue;
      if (PAIRS === 'next' && j !== (i + 1) % names.length) continue;
      pairs.push([i, j]);
    }
  }
  const swaps: Swap[] = [];
  for (const variant of SWAP_VARIANTS) {
    for (const [i, j] of pairs) {
      const source = path.join(FACES_DIR, names[i]);
      const target = path.join(FACES_DIR, names[j]);
      const started = performance.now();
      try {
        const face = readFileSync(source);
        const onto = readFileSync(target);
        if (variant !== 'today') setTuning(tuningOf(variant));
        const result =
          variant === 'today'
            ? await baselineSwap(engine, face, onto)
            : await engine.faceSwap({ face, target: onto });
        const ms = performance.now() - started;
        const output = path.join(
          OUT,
          `swap-${variant}-${path.parse(names[i]).name}-on-${path.parse(names[j]).name}.${result.format}`,
        );
        writeFileSync(output, result.data);
        const targetRaw = await raw(await sharp(onto).rotate().png().toBuffer());
        const outputRaw = await raw(result.data);
        const scale = outputRaw.width / targetRaw.width;
        if (!seamFaces.has(target)) {
          seamFaces.set(target, (await engine.faces.detectAnySize(await decodeRgb(onto, 4096)))[0]);
        }
        const targetFace = seamFaces.get(target);
        let seam: number | null = null;
        if (targetFace) {
          const oval = FACE_OVAL.map((k): [number, number] => [
            targetFace.landmarks[k][0] * scale,
            targetFace.landmarks[k][1] * scale,
          ]);
          const sizedTarget =
            scale === 1
              ? targetRaw
              : await raw(
                  await sharp(onto).rotate().resize(outputRaw.width, outputRaw.height).png().toBuffer(),
                );
          seam = seamFigure(sizedTarget, outputRaw, oval);
        }
        const fullSize = outputRaw.width === targetRaw.width && outputRaw.height === targetRaw.height;
        swaps.push({ variant, source, target, output, ms, seam, fullSize });
      } catch (error) {
        swaps.push({
          variant,
          source,
          target,
          ms: performance.now() - started,
          seam: null,
          fullSize: false,
          error: (error as Error).message || String(error),
        });
      }
    }
  }

  // Super resolution: 2x of each face (halved by PIL), 4x of a 256 px image.
  const srCases: {
    original: string;
    small: string;
    outputs: Record<string, string>;
    ms: number;
    size: string;
  }[] = [];
  for (const name of PARTS.includes('sr') ? names : []) {
    const base = path.parse(name).name;
    const fitted = await sharp(path.join(FACES_DIR, name))
      .resize(512, 512, { fit: 'inside', withoutEnlargement: true })
      .toBuffer({ resolveWithObject: true });
    const width = fitted.info.width & ~1;
    const height = fitted.info.height & ~1;
    const original = path.join(OUT, `sr-${base}-original.png`);
    await sharp(fitted.data).extract({ left: 0, top: 0, width, height }).png().toFile(original);
    const small = path.join(OUT, `sr-${base}-small.png`);
    execFileSync(PYTHON, [
      '-c',
      `from PIL import Image; im=Image.open('${original}').convert('RGB'); im.resize((${width / 2},${height / 2}), Image.BICUBIC).save('${small}')`,
    ]);
    const started = performance.now();
    const result = await engine.superResolve({ image: readFileSync(small), scale: 2 });
    const ms = performance.now() - started;
    const output = path.join(OUT, `sr-${base}-x2.png`);
    writeFileSync(output, result.data);
    srCases.push({ original, small, outputs: { engine: output }, ms, size: `${width / 2}x${height / 2}` });
  }
  await engine.close();
  if (!PARTS.includes('sr')) {
    const manifest = path.join(OUT, 'manifest.json');
    writeFileSync(manifest, JSON.stringify({ swaps, sr: [] }, null, 2));
    const judged = JSON.parse(execFileSync(PYTHON, [JUDGE, manifest], { maxBuffer: 1 << 24 }).toString());
    console.log(`quality of the local CPU engine (${OUT})`);
    printSwaps(swaps, judged.swaps as Judged[]);
    return;
  }
  const x4Engine = new LocalCpuEngine();
  const x4Input = await sharp(path.join(FACES_DIR, 'ai-face.jpg')).resize(256, 256).png().toBuffer();
  const x4Started = performance.now();
  let x4Progress = 0;
  const x4 = await x4Engine
    .superResolve({ image: x4Input, scale: 4 }, { onProgress: () => x4Progress++ })
    .catch((e: Error) => e);
  const x4Ms = performance.now() - x4Started;
  if (!(x4 instanceof Error)) writeFileSync(path.join(OUT, 'sr-ai-face-256-x4.png'), x4.data);
  await x4Engine.close();

  const manifest = path.join(OUT, 'manifest.json');
  writeFileSync(manifest, JSON.stringify({ swaps, sr: srCases }, null, 2));
  const judged = JSON.parse(execFileSync(PYTHON, [JUDGE, manifest], { maxBuffer: 1 << 24 }).toString()) as {
    swaps: Judged[];
    sr: Record<string, { psnr: number; ssim: number }>[];
  };

  console.log(`quality of the local CPU engine (${OUT})`);
  if (swaps.length > 0) printSwaps(swaps, judged.swaps);
  console.log('super resolution 2x (PSNR dB / SSIM against the original; input halved by PIL bicubic)');
  srCases.forEach((c, i) => {
    const r = judged.sr[i];
    console.log(
      `  ${path.basename(c.original).replace('-original.png', '').replace('sr-', '').padEnd(16)} ${c.size.padEnd(9)} ` +
        `engine ${fmt(r.engine.psnr)} / ${fmt(r.engine.ssim, 4)}   bicubic ${fmt(r.bicubic.psnr)} / ${fmt(r.bicubic.ssim, 4)}   ` +
        `lanczos ${fmt(r.lanczos.psnr)} / ${fmt(r.lanczos.ssim, 4)}   ${c.ms.toFixed(0)} ms`,
    );
  });
  const avg = (key: string, m: 'psnr' | 'ssim') => mean(judged.sr.map((r) => r[key][m]));
  console.log(
    `  average: engine ${fmt(avg('engine', 'psnr'))} dB / ${fmt(avg('engine', 'ssim'), 4)}, bicubic ${fmt(avg('bicubic', 'psnr'))} / ${fmt(avg('bicubic', 'ssim'), 4)}, ` +
      `lanczos ${fmt(avg('lanczos', 'psnr'))} / ${fmt(avg('lanczos', 'ssim'), 4)}; engine - bicubic ${fmt(avg('engine', 'psnr') - avg('bicubic', 'psnr'))} dB; ` +
      `${fmt(mean(srCases.map((c) => c.ms)), 0)} ms per image`,
  );
  console.log(
    `super resolution 4x of 256x256: ${x4 instanceof Error ? `failed: ${x4.message}` : `${x4.width}x${x4.height}`} in ${x4Ms.toFixed(0)} ms, ${x4Progress} progress reports`,
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
