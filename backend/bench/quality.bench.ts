/**
 * npm run bench -- quality: how the local CPU engine's outputs look, judged by tools it does not use
 * (backend/bench/quality-judge.py: dlib's face detector and face recogniser, PIL, numpy), beside the
 * time per image. No services.
 *
 * Face swap: each test face of ../shared/testdata/faces (BENCH_FACES_DIR) onto the next one. Per
 * pair: dlib descriptor distance of the output to the source and to the target (same person below
 * about 0.6), whether dlib still finds a face in the output, and a seam figure: the largest excess
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
import { LocalCpuEngine } from '../../libs/inference/src/local-engine';
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

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(values.length, 1);
const fmt = (v: number | null | undefined, digits = 2) => (v == null ? '  -  ' : v.toFixed(digits));

async function main() {
  mkdirSync(OUT, { recursive: true });
  const names = readdirSync(FACES_DIR)
    .filter((f) => /\.(jpe?g|png)$/i.test(f))
    .sort();
  const engine = new LocalCpuEngine();
  await engine.warmup();

  // Face swap: face i onto face i+1.
  const swaps: {
    source: string;
    target: string;
    output?: string;
    ms: number;
    seam: number | null;
    error?: string;
  }[] = [];
  for (let i = 0; i < names.length; i++) {
    const source = path.join(FACES_DIR, names[i]);
    const target = path.join(FACES_DIR, names[(i + 1) % names.length]);
    const started = performance.now();
    try {
      const result = await engine.faceSwap({ face: readFileSync(source), target: readFileSync(target) });
      const ms = performance.now() - started;
      const output = path.join(
        OUT,
        `swap-${i}-${path.parse(names[i]).name}-on-${path.parse(names[(i + 1) % names.length]).name}.${result.format}`,
      );
      writeFileSync(output, result.data);
      const targetRaw = await raw(target);
      const outputRaw = await raw(result.data);
      const scale = outputRaw.width / targetRaw.width;
      const { faces } = await engine.faces.detect(readFileSync(target));
      let seam: number | null = null;
      if (faces[0]) {
        // the engine works at most 1024 px per side: compare at the output's size
        const oval = FACE_OVAL.map((k): [number, number] => [
          faces[0].landmarks[k][0] * scale,
          faces[0].landmarks[k][1] * scale,
        ]);
        const sizedTarget =
          scale === 1
            ? targetRaw
            : await raw(await sharp(target).resize(outputRaw.width, outputRaw.height).png().toBuffer());
        seam = seamFigure(sizedTarget, outputRaw, oval);
      }
      swaps.push({ source, target, output, ms, seam });
    } catch (error) {
      swaps.push({
        source,
        target,
        ms: performance.now() - started,
        seam: null,
        error: (error as Error).message || String(error),
      });
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
  for (const name of names) {
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
  const x4Input = await sharp(path.join(FACES_DIR, 'ai-face.jpg')).resize(256, 256).png().toBuffer();
  const x4Started = performance.now();
  let x4Progress = 0;
  const x4 = await engine
    .superResolve({ image: x4Input, scale: 4 }, { onProgress: () => x4Progress++ })
    .catch((e: Error) => e);
  const x4Ms = performance.now() - x4Started;
  if (!(x4 instanceof Error)) writeFileSync(path.join(OUT, 'sr-ai-face-256-x4.png'), x4.data);
  await engine.close();

  const manifest = path.join(OUT, 'manifest.json');
  writeFileSync(manifest, JSON.stringify({ swaps, sr: srCases }, null, 2));
  const judged = JSON.parse(execFileSync(PYTHON, [JUDGE, manifest], { maxBuffer: 1 << 24 }).toString()) as {
    swaps: {
      facesFound: number;
      targetFaceFound: boolean;
      toSource: number | null;
      toTarget: number | null;
      sourceTarget: number | null;
    }[];
    sr: Record<string, { psnr: number; ssim: number }>[];
  };

  console.log(`quality of the local CPU engine (${OUT})`);
  console.log(
    'face swap (dlib descriptor distance: same person below ~0.6; seam: excess ΔE step at the face outline)',
  );
  swaps.forEach((swap, i) => {
    const j = judged.swaps[i];
    const label = `${path.parse(swap.source).name} -> ${path.parse(swap.target).name}`.padEnd(32);
    console.log(
      `  ${label} ${swap.error !== undefined ? `refused/failed: ${swap.error}` : `to source ${fmt(j.toSource)}  to target ${fmt(j.toTarget)}  (source-target ${fmt(j.sourceTarget)})  face found ${j.facesFound > 0 ? 'yes' : 'NO '}  seam ${fmt(swap.seam, 1)}  ${swap.ms.toFixed(0)} ms`}`,
    );
  });
  const done = swaps.map((s, i) => ({ s, j: judged.swaps[i] })).filter(({ s }) => !s.error);
  console.log(
    `  summary: ${done.length}/${swaps.length} swapped; face found in ${done.filter(({ j }) => j.facesFound > 0).length} (dlib finds the target's own face in ${done.filter(({ j }) => j.targetFaceFound).length}); ` +
      `closer to source than target in ${done.filter(({ j }) => j.toSource != null && j.toTarget != null && j.toSource < j.toTarget).length} of ${done.filter(({ j }) => j.toSource != null && j.toTarget != null).length} measurable; ` +
      `mean distance to source ${fmt(mean(done.filter(({ j }) => j.toSource != null).map(({ j }) => j.toSource!)))}, ` +
      `to target ${fmt(mean(done.filter(({ j }) => j.toTarget != null).map(({ j }) => j.toTarget!)))}; ` +
      `mean seam ${fmt(mean(done.filter(({ s }) => s.seam != null).map(({ s }) => s.seam!)), 1)}, max ${fmt(Math.max(...done.map(({ s }) => s.seam ?? 0)), 1)}; ` +
      `${fmt(mean(done.map(({ s }) => s.ms)), 0)} ms per swap`,
  );
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
