import type { LayersModel } from '@tensorflow/tfjs-layers';
import { EncodedImage, RunContext } from './engine.port';
import { EngineLogger, silentLogger } from './logger';
import { RgbImage, decodeRgb, fromRgb } from './image-io';
import { fileHandler, initTf, modelQueue, tf } from './tf-runtime';

/** The x2 ESRGAN-slim model files ship in the package but are not in its "exports" map. */
export function defaultSrModelPath(): string {
  return require.resolve('@upscalerjs/esrgan-slim').replace(/dist.cjs.*/, 'models/x2/model.json');
}

export interface SuperResolverOptions {
  /** model.json of a x2 Keras layers-model taking and giving 0..255 RGB; default: esrgan-slim x2 */
  modelPath?: string;
  logger?: EngineLogger;
  /** Largest tile side fed to the model, margins included (default 128). */
  tileSize?: number;
  /** Context pixels around each tile, computed but cropped away so tiles join without seams. */
  tileMargin?: number;
}

/**
 * 2x super resolution with the ESRGAN-slim model on the tfjs wasm backend, in overlapping tiles
 * (bounded memory, progress per tile). If the model cannot load or run, the image is resized with
 * Lanczos instead, and the fallback is logged.
 */
export class SuperResolver {
  private readonly modelPath: string;
  private readonly logger: EngineLogger;
  private readonly tileSize: number;
  private readonly margin: number;
  private model?: Promise<LayersModel | null>;

  constructor(options: SuperResolverOptions = {}) {
    this.modelPath = options.modelPath ?? defaultSrModelPath();
    this.logger = options.logger ?? silentLogger;
    this.tileSize = options.tileSize ?? 128;
    this.margin = options.tileMargin ?? 8;
    if (this.tileSize - 2 * this.margin < 16) throw new Error('tileSize too small for tileMargin');
  }

  /** Loads the model once; resolves false (and logs) when it cannot be loaded. */
  async load(): Promise<boolean> {
    this.model ??= this.loadModel();
    return (await this.model) !== null;
  }

  private async loadModel(): Promise<LayersModel | null> {
    try {
      const started = Date.now();
      await initTf();
      const { loadLayersModel } = await import('@tensorflow/tfjs-layers');
      const model = await loadLayersModel(fileHandler(this.modelPath));
      this.logger.log(`Super-resolution model loaded in ${Date.now() - started} ms (${tf.getBackend()})`);
      return model;
    } catch (error) {
      this.logger.warn(`Super-resolution model failed to load, Lanczos resize instead: ${describe(error)}`);
      return null;
    }
  }

  /** Releases the model's weights; a later call loads it again. */
  async close(): Promise<void> {
    const model = this.model;
    this.model = undefined;
    (await model)?.dispose();
  }

  /**
   * Upscales an encoded image: input scaled down to fit 1024 px per side first, then 2x by the
   * model (4x: the model's 2x followed by a Lanczos 2x). PNG output.
   */
  async upscale(image: Buffer, scale: 2 | 4 = 2, context: RunContext = {}): Promise<EncodedImage> {
    const input = await decodeRgb(image);
    let result: RgbImage | null = null;
    if (await this.load()) {
      try {
        result = await this.upscaleRgb(input, {
          ...context,
          onProgress: (f) => context.onProgress?.(scale === 4 ? f * 0.95 : f),
        });
      } catch (error) {
        if (context.signal?.aborted) throw error;
        this.logger.warn(`Super-resolution model failed, Lanczos resize instead: ${describe(error)}`);
      }
    }
    const source = result ?? input;
    const factor = result ? scale / 2 : scale;
    const width = input.width * scale;
    const height = input.height * scale;
    const pipeline = fromRgb(source);
    if (factor !== 1) pipeline.resize(width, height, { kernel: 'lanczos3' });
    const data = await pipeline.png().toBuffer();
    context.onProgress?.(1);
    return { data, format: 'png', width, height };
  }

  /** Runs the model over the image tile by tile; each tile is one task of the shared model queue. */
  async upscaleRgb(input: RgbImage, context: RunContext = {}): Promise<RgbImage> {
    const model = (await this.load()) ? await this.model : null;
    if (!model) throw new Error('The super-resolution model could not be loaded');
    const { width, height } = input;
    const out = new Uint8Array(width * 2 * height * 2 * 3);
    const tiles = tileGrid(width, height, this.tileSize - 2 * this.margin);
    for (let i = 0; i < tiles.length; i++) {
      context.signal?.throwIfAborted();
      const tile = tiles[i];
      await modelQueue.run(() => this.runTile(model, input, tile, out));
      context.onProgress?.((i + 1) / tiles.length);
    }
    return { data: out, width: width * 2, height: height * 2 };
  }

  private runTile(model: LayersModel, input: RgbImage, tile: Tile, out: Uint8Array): void {
    const { width, height } = input;
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
      patch.set(input.data.subarray(from, from + pw * 3), y * pw * 3);
    }
    const result = tf.tidy(() => {
      const x = tf.tensor4d(patch, [1, ph, pw, 3]);
      return model.predict(x) as tf.Tensor4D;
    });
    let pixels: Float32Array;
    try {
      if (result.shape[1] !== ph * 2 || result.shape[2] !== pw * 2) {
        throw new Error(`Unexpected model output shape ${result.shape.join('x')} for ${pw}x${ph}`);
      }
      pixels = result.dataSync() as Float32Array;
    } finally {
      result.dispose();
    }
    // Copy the tile's own area (margins cropped away) into the output; the clamped view rounds
    // and clamps to 0..255.
    const clamped = new Uint8ClampedArray(out.buffer, out.byteOffset, out.length);
    const outWidth = width * 2;
    const offX = (tile.x - px0) * 2;
    const offY = (tile.y - py0) * 2;
    for (let y = 0; y < tile.h * 2; y++) {
      let src = ((offY + y) * pw * 2 + offX) * 3;
      let dst = ((tile.y * 2 + y) * outWidth + tile.x * 2) * 3;
      for (let k = 0; k < tile.w * 2 * 3; k++) clamped[dst++] = pixels[src++];
    }
  }
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
