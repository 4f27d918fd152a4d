/**
 * @jest-environment ./libs/inference/src/sr-onnx.jest-env.cjs
 */
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import sharp from 'sharp';
import { decodeRgb } from './image-io';
import { fixture } from './spec-helpers';
import { ncnnMacsPerPixel, OnnxSrModel } from './sr-onnx';
import {
  SR_MODEL_NAME,
  SuperResolver,
  TfjsSrModel,
  defaultSrModelDir,
  parseCompactNcnn,
} from './super-resolution';
import { initTf } from './tf-runtime';

jest.setTimeout(180_000);

const base = path.join(defaultSrModelDir(), SR_MODEL_NAME);

/** An RGB float patch (0..1, HWC) cut from a fixture: not square, so a swapped H/W shows. */
async function patchOf(name: string, left: number, top: number, width: number, height: number) {
  const image = await decodeRgb(fixture(name));
  const patch = new Float32Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let k = 0; k < width * 3; k++) {
      patch[y * width * 3 + k] = image.data[((top + y) * image.width + left) * 3 + k] / 255;
    }
  }
  return patch;
}

const maxAbsDiff = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  expect(a.length).toBe(b.length);
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i] - b[i]));
  return max;
};

describe('super resolution on onnxruntime', () => {
  it('gives the same tile as the tfjs network read from the ncnn files', async () => {
    await initTf();
    const [param, bin] = await Promise.all([readFile(`${base}.param`, 'utf8'), readFile(`${base}.bin`)]);
    const tfjs = new TfjsSrModel(parseCompactNcnn(param, bin));
    const onnx = await OnnxSrModel.load(`${base}.onnx`, 1);
    try {
      expect(onnx.scale).toBe(4);
      const [w, h] = [44, 30];
      const patch = await patchOf('cgi-model-3.jpg', 200, 180, w, h);
      const [a, b] = [await tfjs.run(patch, w, h), await onnx.run(patch, w, h)];
      expect(a.length).toBe(w * 4 * h * 4 * 3);
      // the network does add detail to the nearest-neighbour upscale it is built around
      const nearest = new Float32Array(a.length);
      for (let y = 0; y < h * 4; y++)
        for (let x = 0; x < w * 4; x++)
          for (let c = 0; c < 3; c++)
            nearest[(y * w * 4 + x) * 3 + c] = patch[(Math.floor(y / 4) * w + Math.floor(x / 4)) * 3 + c];
      expect(maxAbsDiff(a, nearest)).toBeGreaterThan(0.02);
      const diff = maxAbsDiff(a, b);
      console.log(`onnx vs tfjs on a ${w}x${h} tile: max abs diff ${diff.toExponential(2)} (0..1 scale)`);
      expect(diff).toBeLessThan(1e-4);
    } finally {
      await Promise.all([tfjs.close(), onnx.close()]);
    }
  });

  it('upscales to the same image as tfjs-wasm through the whole pipeline, with progress per tile', async () => {
    const input = await sharp(fixture('ai-face.jpg')).resize(300, 200, { fit: 'fill' }).png().toBuffer();
    const onnx = new SuperResolver({ runtime: 'onnx', threads: 2, tileSize: 128 });
    const tfjs = new SuperResolver({ runtime: 'tfjs-wasm', tileSize: 128 });
    try {
      expect(await onnx.loadedRuntime()).toBe('onnx');
      expect(await tfjs.loadedRuntime()).toBe('tfjs-wasm');
      const progress: number[] = [];
      const a = await onnx.upscale(input, 2, { onProgress: (f) => progress.push(f) });
      const b = await tfjs.upscale(input, 2);
      expect(a).toMatchObject({ width: 600, height: 400 });
      const [pa, pb] = await Promise.all([a, b].map((r) => sharp(r.data).raw().toBuffer()));
      expect(maxAbsDiff(pa, pb)).toBeLessThanOrEqual(1); // float rounding at most flips a byte
      expect(progress.length).toBeGreaterThan(4); // 3 x 2 tiles of 104 px
      expect(progress.at(-1)).toBe(1);
    } finally {
      await Promise.all([onnx.close(), tfjs.close()]);
    }
  });

  it('falls back to tfjs-wasm when the .onnx file is missing', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'sr-no-onnx-'));
    try {
      for (const ext of ['param', 'bin'])
        await copyFile(`${base}.${ext}`, path.join(dir, `${SR_MODEL_NAME}.${ext}`));
      const warnings: string[] = [];
      const resolver = new SuperResolver({
        modelDir: dir,
        logger: { log: () => undefined, warn: (m) => warnings.push(m) },
      });
      expect(await resolver.loadedRuntime()).toBe('tfjs-wasm');
      expect(warnings.join()).toMatch(/onnxruntime unavailable, tfjs-wasm instead/);
      const result = await resolver.upscale(
        await sharp(fixture('ai-face.jpg')).resize(64, 48).png().toBuffer(),
      );
      expect(result).toMatchObject({ width: 128, height: 96 });
      await resolver.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('counts the multiply-adds per input pixel from the layer shapes', async () => {
    // 3->64, sixteen 64->64 and one 64->48 convolution, 3x3 each
    expect(ncnnMacsPerPixel(await readFile(`${base}.param`, 'utf8'))).toBe(
      9 * (3 * 64 + 16 * 64 * 64 + 64 * 48),
    );
  });

  it('runs inside a worker thread, shows its native runs to another thread, and a cancel sent there stops it between tiles', async () => {
    const image = await sharp(fixture('ai-face.jpg')).resize(160, 120, { fit: 'fill' }).png().toBuffer();
    const nativeFlag = new Int32Array(new SharedArrayBuffer(4));
    const big = await sharp(fixture('cgi-model-3.jpg')).resize(480, 480, { fit: 'fill' }).png().toBuffer();
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        tsconfig: path.resolve(__dirname, '../tsconfig.json'),
        contracts: path.resolve(__dirname, '../../contracts/src/index.ts'),
        module: path.join(__dirname, 'super-resolution.ts'),
        onnxModule: path.join(__dirname, 'sr-onnx.ts'),
        image,
        big,
        flag: nativeFlag,
      },
    });
    // the flag a pool watches before terminating a thread: seen raised while the worker computes
    let flagSeen = false;
    const watcher = setInterval(() => (flagSeen ||= Atomics.load(nativeFlag, 0) === 1), 5);
    const messages: Record<string, unknown>[] = [];
    let sentAbort = false;
    const exited = new Promise<number>((resolve, reject) => {
      worker.on('message', (message: Record<string, unknown>) => {
        messages.push(message);
        // cancel the 4x once its first tile is done
        if ('progress' in message && !sentAbort) {
          sentAbort = true;
          worker.postMessage('abort');
        }
      });
      worker.on('error', reject);
      worker.on('exit', resolve);
    });
    expect(await exited).toBe(0);
    clearInterval(watcher);
    expect(flagSeen).toBe(true);
    expect(Atomics.load(nativeFlag, 0)).toBe(0);
    const result = messages.find((m) => 'data' in m) as { runtime: string; data: Uint8Array };
    expect(result.runtime).toBe('onnx');
    const here = new SuperResolver({ threads: 1 });
    try {
      const [there, mine] = await Promise.all([
        sharp(Buffer.from(result.data)).raw().toBuffer(),
        here.upscale(image, 2).then((r) => sharp(r.data).raw().toBuffer()),
      ]);
      expect(maxAbsDiff(there, mine)).toBeLessThanOrEqual(1);
    } finally {
      await here.close();
    }
    // 480 px in 192 px tiles (168 px inside the margins) is 3 x 3 tiles: the cancel came after the first and stopped it
    const tilesDone = messages.filter((m) => 'progress' in m).length;
    expect(messages.at(-1)).toEqual({ cancelled: 'AbortError' });
    expect(tilesDone).toBeGreaterThanOrEqual(1);
    expect(tilesDone).toBeLessThanOrEqual(2);
  });
});

/** The worker: loads the TypeScript sources as the pool's dev bootstrap does (pool-worker.dev.cjs). */
const WORKER_SOURCE = `
const Module = require('node:module');
const { parentPort, workerData } = require('node:worker_threads');
require('ts-node').register({ transpileOnly: true, project: workerData.tsconfig });
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return resolveFilename.call(this, request === '@studio/contracts' ? workerData.contracts : request, ...rest);
};
const { SuperResolver } = require(workerData.module);
require(workerData.onnxModule).watchNativeRuns(workerData.flag);
const controller = new AbortController();
parentPort.on('message', (message) => message === 'abort' && controller.abort());
(async () => {
  const resolver = new SuperResolver({ threads: 1 });
  const runtime = await resolver.loadedRuntime();
  const result = await resolver.upscale(Buffer.from(workerData.image), 2);
  parentPort.postMessage({ runtime, data: result.data });
  try {
    await resolver.upscale(Buffer.from(workerData.big), 4, {
      signal: controller.signal,
      onProgress: (f) => f < 0.9 && parentPort.postMessage({ progress: f }),
    });
    parentPort.postMessage({ finished: true });
  } catch (error) {
    parentPort.postMessage({ cancelled: error.name });
  }
  await resolver.close();
  parentPort.close();
})();
`;
