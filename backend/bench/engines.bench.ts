/**
 * npm run bench -- engines: the CPU runtimes of the local engine side by side, in one run (issue 24).
 *
 * - Super resolution end to end (decode, model tiles, back-projection, PNG), 2x of a 512 px and 4x
 *   of a 1024 px portrait (libs/inference/fixtures), in seconds per input megapixel: onnxruntime-node
 *   (the default runtime) at each thread count of BENCH_THREADS (default "1,2") and tfjs-wasm (one
 *   thread: its only mode in Node).
 * - The model alone on one tile: achieved GFLOP/s, FLOPs counted from the layer shapes of the .param
 *   file (2 x multiply-adds), against the machine's float32 matrix-multiply peak at the same thread
 *   count, measured here twice: a 2048^3 MatMul through onnxruntime itself, and numpy's sgemm
 *   (OpenBLAS) with its threads pinned by OPENBLAS_NUM_THREADS.
 * - A face swap (Human's face mesh, on tfjs-wasm in both columns: its models have no other runtime here).
 *
 * Timed runs of the runtimes are interleaved and the fastest kept. Every figure is given per wall
 * second and per CPU second (process CPU time, all threads): on a machine shared with other work
 * the wall figures drop, the CPU ones much less. tfjs-node was a
 * candidate too: its install script downloads libtensorflow from storage.googleapis.com, which this
 * machine cannot reach, and without it the package has no binding to load.
 * Needs `ensure_sr_models` (deploy/local/bench.sh runs it). No services.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { LocalCpuEngine } from '../../libs/inference/src/local-engine';
import { decodeRgb } from '../../libs/inference/src/image-io';
import { ncnnMacsPerPixel, OnnxSrModel, SrModel, SrRuntime } from '../../libs/inference/src/sr-onnx';
import {
  SR_MODEL_NAME,
  SuperResolver,
  TILE_ONNX,
  TfjsSrModel,
  defaultSrModelDir,
  parseCompactNcnn,
} from '../../libs/inference/src/super-resolution';
import { initTf } from '../../libs/inference/src/tf-runtime';

const ROOT = path.resolve(__dirname, '..', '..');
const FIXTURES = path.join(ROOT, 'libs', 'inference', 'fixtures');
const PYTHON = path.join(ROOT, '.tools', 'onnx', 'bin', 'python');
const PEAK = path.join(__dirname, 'engines-peak.py');
const THREADS = (process.env.BENCH_THREADS ?? '1,2').split(',').map(Number);
const MATMUL_N = 2048;
/** End-to-end runs per runtime and case (BENCH_ROUNDS, default 2), interleaved; the fastest counts. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

interface Timing {
  wall: number;
  cpu: number;
}

const cpuSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

async function timed<T>(op: () => Promise<T>): Promise<Timing & { result: T }> {
  const [wall, cpu] = [performance.now(), cpuSeconds()];
  const result = await op();
  return { wall: (performance.now() - wall) / 1000, cpu: cpuSeconds() - cpu, result };
}

/** The fastest of `reps` runs (after one warm-up run): on a shared machine the others waited. */
async function best(reps: number, op: () => Promise<unknown>): Promise<Timing> {
  await op();
  let fastest: Timing = { wall: Infinity, cpu: Infinity };
  for (let i = 0; i < reps; i++) {
    const t = await timed(op);
    if (t.wall < fastest.wall) fastest = { wall: t.wall, cpu: t.cpu };
  }
  return fastest;
}

const f = (v: number, digits = 1) => v.toFixed(digits).padStart(7);

async function main() {
  const base = path.join(defaultSrModelDir(), SR_MODEL_NAME);
  const param = readFileSync(`${base}.param`, 'utf8');
  const macs = ncnnMacsPerPixel(param);
  const flopPerPixel = 2 * macs;
  console.log(
    `engines bench: ${THREADS.join(', ')} onnxruntime thread(s); load average at start ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  console.log(
    `SR model ${SR_MODEL_NAME}: ${macs.toLocaleString('en')} multiply-adds per input pixel (from the` +
      ` .param layer shapes) = ${(flopPerPixel / 1e6).toFixed(3)} MFLOP per input pixel\n`,
  );

  // --- super resolution end to end ------------------------------------------------------------
  const portrait = path.join(FIXTURES, 'cgi-model-22.jpg');
  const cases = [
    { side: 512, scale: 2 as const },
    { side: 1024, scale: 4 as const },
  ];
  const runtimes: { label: string; runtime: SrRuntime; threads: number }[] = [
    ...THREADS.map((threads) => ({ label: `onnx ${threads}t`, runtime: 'onnx' as const, threads })),
    { label: 'tfjs-wasm', runtime: 'tfjs-wasm', threads: 1 },
  ];
  const resolvers = runtimes.map((r) => new SuperResolver({ runtime: r.runtime, threads: r.threads }));
  for (const [i, resolver] of resolvers.entries()) {
    const loaded = await resolver.loadedRuntime();
    if (loaded !== runtimes[i].runtime) throw new Error(`${runtimes[i].label} did not load (${loaded})`);
  }
  console.log(
    `Super resolution, end to end, seconds per input megapixel (wall / CPU), fastest of ${ROUNDS} interleaved rounds:`,
  );
  console.log(
    `  input            ${runtimes.map((r) => r.label.padStart(17)).join('')}   speed-up wall (CPU)`,
  );
  for (const { side, scale } of cases) {
    const input = await sharp(portrait).resize(side, side, { fit: 'inside' }).png().toBuffer();
    const { width, height } = await decodeRgb(input);
    const mp = (width * height) / 1e6;
    // rounds of every runtime in turn, the fastest of each kept: other work on the machine comes
    // and goes, and should not land on one runtime only
    const rows: Timing[] = resolvers.map(() => ({ wall: Infinity, cpu: Infinity }));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, resolver] of resolvers.entries()) {
        const t = await timed(() => resolver.upscale(input, scale));
        if (t.result.width !== width * scale) throw new Error('wrong output size');
        if (t.wall / mp < rows[i].wall) rows[i] = { wall: t.wall / mp, cpu: t.cpu / mp };
      }
    }
    const wasm = rows[rows.length - 1];
    const speedups = rows
      .slice(0, -1)
      .map(
        (r, i) =>
          `${runtimes[i].label} ${(wasm.wall / r.wall).toFixed(1)}x (${(wasm.cpu / r.cpu).toFixed(1)}x)`,
      )
      .join(', ');
    console.log(
      `  ${`${width}x${height} ${scale}x`.padEnd(15)}${rows.map((r) => `${f(r.wall)} /${f(r.cpu)}  `).join('')}  ${speedups}`,
    );
    const effective = rows.map(
      (r, i) => `${runtimes[i].label} ${((flopPerPixel * 1e6) / r.wall / 1e9).toFixed(1)}`,
    );
    console.log(
      `  ${''.padEnd(15)}effective GFLOP/s end to end (input pixels x FLOP per pixel / wall): ${effective.join(', ')}`,
    );
  }
  await Promise.all(resolvers.map((r) => r.close()));

  // --- the model alone on one tile, against the matmul peak -------------------------------------
  const tile = TILE_ONNX;
  const image = await decodeRgb(readFileSync(portrait));
  const patch = new Float32Array(tile * tile * 3);
  for (let y = 0; y < tile; y++) {
    for (let k = 0; k < tile * 3; k++)
      patch[y * tile * 3 + k] = image.data[((300 + y) * image.width + 200) * 3 + k] / 255;
  }
  const tileFlop = tile * tile * flopPerPixel;
  await initTf();
  const wasmModel = new TfjsSrModel(parseCompactNcnn(param, readFileSync(`${base}.bin`)));
  const wasmTile = await best(2, () => wasmModel.run(patch, tile, tile));
  await wasmModel.close();

  const dir = mkdtempSync(path.join(tmpdir(), 'engines-bench-'));
  const matmulFile = path.join(dir, 'matmul.onnx');
  execFileSync(PYTHON, [PEAK, 'matmul-onnx', matmulFile]);
  const ort = await import('onnxruntime-node');
  const matmulFlop = 2 * MATMUL_N ** 3;
  const rand = () => Float32Array.from({ length: MATMUL_N * MATMUL_N }, () => Math.random());
  const a = new ort.Tensor('float32', rand(), [MATMUL_N, MATMUL_N]);
  const b = new ort.Tensor('float32', rand(), [MATMUL_N, MATMUL_N]);

  const gf = (flop: number, t: Timing) => ({ wall: flop / t.wall / 1e9, cpu: flop / t.cpu / 1e9 });
  console.log(
    `\nSR model alone on a ${tile} px tile (the default onnx tile) vs the float32 matrix-multiply peak` +
      ` (${MATMUL_N}^3), GFLOP/s per wall second (per CPU second):`,
  );
  console.log(
    `  tfjs-wasm 1t: model ${f(gf(tileFlop, wasmTile).wall)} (${gf(tileFlop, wasmTile).cpu.toFixed(1)})`,
  );
  for (const threads of THREADS) {
    const model: SrModel = await OnnxSrModel.load(`${base}.onnx`, threads);
    const modelTime = await best(3, () => model.run(patch, tile, tile));
    await model.close();
    const session = await ort.InferenceSession.create(matmulFile, {
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      graphOptimizationLevel: 'all',
    });
    const ortPeak = await best(3, () => session.run({ a, b }));
    await session.release();
    const numpy = JSON.parse(
      execFileSync(PYTHON, [PEAK, 'sgemm', String(MATMUL_N), '3'], {
        env: { ...process.env, OPENBLAS_NUM_THREADS: String(threads), OMP_NUM_THREADS: String(threads) },
      }).toString(),
    ) as Timing;
    const m = gf(tileFlop, modelTime);
    const p1 = gf(matmulFlop, ortPeak);
    const p2 = gf(matmulFlop, numpy);
    const pct = (x: number, y: number) => `${((100 * x) / y).toFixed(0)}%`;
    console.log(
      `  onnx ${threads}t:     model ${f(m.wall)} (${m.cpu.toFixed(1)}); peak onnxruntime MatMul ${f(p1.wall)}` +
        ` (${p1.cpu.toFixed(1)}), numpy/OpenBLAS sgemm ${f(p2.wall)} (${p2.cpu.toFixed(1)});` +
        ` model/peak ${pct(m.wall, p1.wall)} / ${pct(m.wall, p2.wall)} (CPU: ${pct(m.cpu, p1.cpu)} / ${pct(m.cpu, p2.cpu)});` +
        ` ${(m.wall / gf(tileFlop, wasmTile).wall).toFixed(1)}x tfjs-wasm`,
    );
  }
  rmSync(dir, { recursive: true, force: true });

  // --- face swap ----------------------------------------------------------------------------------
  const engine = new LocalCpuEngine();
  await engine.warmup();
  const face = readFileSync(path.join(FIXTURES, 'cgi-model-1.jpg'));
  const target = readFileSync(portrait);
  const targetSize = await decodeRgb(target);
  const mp = (targetSize.width * targetSize.height) / 1e6;
  const swap = await best(2, () => engine.faceSwap({ face, target }));
  console.log(
    `\nFace swap ${targetSize.width}x${targetSize.height} target: ${(swap.wall / mp).toFixed(2)} s per input MP` +
      ` (${(swap.cpu / mp).toFixed(2)} CPU s); Human's face models run on tfjs-wasm, so the same figure for both runtimes`,
  );
  await engine.close();
  console.log(
    `\nload average at end ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
