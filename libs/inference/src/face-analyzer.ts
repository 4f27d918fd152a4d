import path from 'node:path';
import sharp from 'sharp';
import type { GraphModel } from '@tensorflow/tfjs-converter';
import type { Config, Human } from '@vladmandic/human';
import { FACE_SWAP_LIMITS } from '@studio/contracts';
import { EngineInputError } from './engine.port';
import { RgbImage, decodeRgb } from './image-io';
import { EngineLogger, silentLogger } from './logger';
import { initTf, modelQueue, tf, wasmDir } from './tf-runtime';

/** [x, y, width, height] in pixels. */
export type Box = [number, number, number, number];
/** [x, y] in pixels. */
export type Point = [number, number];

export interface DetectedFace {
  box: Box;
  /** The 468 points of the MediaPipe face mesh. */
  landmarks: Point[];
  /** 0..1 */
  score: number;
}

export interface FaceDetection {
  width: number;
  height: number;
  /** Largest first. */
  faces: DetectedFace[];
}

export interface FaceAnalyzerOptions {
  /** Folder of Human's models (blazeface, facemesh, faceres .json/.bin); default: the package's. */
  modelsDir?: string;
  logger?: EngineLogger;
  /**
   * How faces are searched (face-detect.bench.ts compares them): 'whole' runs the detector on the
   * whole image; 'tiles' also on overlapping tiles, so small faces (full-body figures, groups)
   * reach the detector's 256 px input at a size it finds. Default: DEFAULT_FACE_SEARCH.
   */
  search?: FaceSearch;
  /** Human's rotation correction of tilted faces before the mesh (default: DEFAULT_FACE_SEARCH). */
  rotation?: boolean;
}

export type FaceSearch = 'whole' | 'tiles';

/**
 * Chosen on the measured set of face-detect.bench.ts (docs/face-swap.md): with tiles 71 of 72
 * faces were found against 63 for the whole picture alone (small faces 9/10 against 5/10,
 * six-figure sheets 12/12 against 8/12). Human's rotation correction found as many and 2 fewer
 * false faces, but its mesh reads yaw larger: in the quality bench it raised the pose refusals
 * from 7% to 19% of pairs, so it stays off.
 */
export const DEFAULT_FACE_SEARCH: { search: FaceSearch; rotation: boolean } = {
  search: 'tiles',
  rotation: false,
};

/** Human's bundled models folder: its "exports" map hides it, so it is found beside the dist. */
export function defaultHumanModelsDir(): string {
  return path.resolve(path.dirname(require.resolve('@vladmandic/human')), '..', 'models');
}

/** Images are analysed at most this many px per side; coordinates are given in the input's pixels. */
const ANALYSIS_MAX_SIDE = 2048;
/** Tiles smaller than this add nothing: the whole image already reaches the detector at that size. */
const TILE_MIN_SIDE = 320;
/** No tiles when the largest face found is at least this fraction of the picture's longer side. */
const TILE_SKIP_FACE = 0.2;
/** Input side of the faceres model. */
const EMBEDDING_INPUT = 224;
/** The faceres layer whose activations are the identity embedding (256 values). */
const EMBEDDING_NODE = 'feats/Relu';
/** faceres' age output: a softmax over 100 bins. */
const AGE_NODE = 'age_pred/Softmax';

/** Human's reading of faceres' age bins (its faceres module): the top bin, pulled towards its larger neighbour. */
export function ageOfBins(bins: Float32Array): number {
  let top = 0;
  for (let i = 1; i < bins.length; i++) if (bins[i] > bins[top]) top = i;
  const below = bins[top - 1] ?? 0;
  const above = bins[top + 1] ?? 0;
  const age = below > above ? 10 * top - 100 * below : 10 * top + 100 * above;
  return Math.round(age) / 10;
}

/**
 * Face detection (468-point mesh) with @vladmandic/human and identity embeddings with its faceres
 * model, on the shared tfjs wasm engine. Models load once, on first use; all model work runs
 * through the process's model queue, so concurrent calls are safe.
 */
export class FaceAnalyzer {
  private readonly modelsDir: string;
  private readonly logger: EngineLogger;
  private readonly search: FaceSearch;
  private readonly rotation: boolean;
  private loaded?: Promise<{ human: Human; faceres: GraphModel }>;

  constructor(options: FaceAnalyzerOptions = {}) {
    this.modelsDir = options.modelsDir ?? defaultHumanModelsDir();
    this.logger = options.logger ?? silentLogger;
    this.search = options.search ?? DEFAULT_FACE_SEARCH.search;
    this.rotation = options.rotation ?? DEFAULT_FACE_SEARCH.rotation;
  }

  async load(): Promise<void> {
    await this.models();
  }

  private models(): Promise<{ human: Human; faceres: GraphModel }> {
    this.loaded ??= this.loadModels().catch((error: unknown) => {
      this.loaded = undefined; // a later call tries again
      throw error;
    });
    return this.loaded;
  }

  private async loadModels(): Promise<{ human: Human; faceres: GraphModel }> {
    const started = Date.now();
    await initTf();
    const modelBasePath = 'file://' + this.modelsDir + path.sep;
    // Human's "exports" map does not expose its node-wasm build: required by file path. It requires
    // the hoisted @tensorflow packages, so it shares the engine initialised by initTf.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { Human } = require(
      path.join(path.dirname(require.resolve('@vladmandic/human')), 'human.node-wasm.js'),
    );
    const human: Human = new Human(humanConfig(modelBasePath, this.rotation));
    await human.load();
    const { loadGraphModel } = await import('@tensorflow/tfjs-converter');
    const faceres = await loadGraphModel(modelBasePath + 'faceres.json');
    this.logger.log(`Face models loaded in ${Date.now() - started} ms`);
    return { human, faceres };
  }

  /** Finds the faces of an encoded image (EXIF orientation applied), largest first. */
  async detect(image: Buffer): Promise<FaceDetection> {
    const rgb = await decodeRgb(image, ANALYSIS_MAX_SIDE);
    const { width, height } = (await sharp(image).metadata()).autoOrient;
    const faces = (await this.detectRgb(rgb)).map((face) => scaleFace(face, width / rgb.width));
    return { width, height, faces };
  }

  /**
   * Finds the faces of decoded pixels of any size, largest first: an image larger than
   * ANALYSIS_MAX_SIDE is scaled down for the detector and the faces are given in its own pixels.
   */
  async detectAnySize(image: RgbImage): Promise<DetectedFace[]> {
    const scale = Math.min(1, ANALYSIS_MAX_SIDE / Math.max(image.width, image.height));
    if (scale === 1) return this.search === 'tiles' ? this.detectTiled(image) : this.detectRgb(image);
    const width = Math.max(1, Math.round(image.width * scale));
    const height = Math.max(1, Math.round(image.height * scale));
    const data = await sharp(image.data, { raw: { width: image.width, height: image.height, channels: 3 } })
      .resize(width, height, { fit: 'fill' })
      .raw()
      .toBuffer();
    const scaled = { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width, height };
    const faces = this.search === 'tiles' ? await this.detectTiled(scaled) : await this.detectRgb(scaled);
    return faces.map((face) => scaleFace(face, image.width / width));
  }

  /**
   * The whole image, then a grid of overlapping tiles (each about half the image's longer side,
   * overlapping by a third, so a face cut by one tile's edge lies whole in the next); the faces of
   * every pass are merged, larger first, a face inside one already kept dropped.
   */
  private async detectTiled(image: RgbImage): Promise<DetectedFace[]> {
    const faces = await this.detectRgb(image);
    for (const tile of searchTiles(image, faces.length > 0 ? faces[0].box[2] : 0)) {
      for (const face of await this.detectRgb(cropRgb(image, tile))) {
        faces.push(shiftFace(face, tile.left, tile.top));
      }
    }
    return withoutDuplicates(faces.sort((a, b) => b.box[2] * b.box[3] - a.box[2] * a.box[3]));
  }

  /** Finds the faces of decoded pixels, largest first. */
  async detectRgb(image: RgbImage): Promise<DetectedFace[]> {
    const { human } = await this.models();
    const result = await modelQueue.run(async () => {
      const input = tf.tensor3d(image.data, [image.height, image.width, 3], 'int32');
      try {
        return await human.detect(input);
      } finally {
        input.dispose();
      }
    });
    const faces = result.face
      .filter((face) => face.mesh.length >= 468)
      .map((face) => ({
        box: face.box.map((v) => Math.round(v)) as Box,
        landmarks: face.mesh.map(([x, y]) => [x, y] as Point),
        score: face.score,
      }))
      .sort((a, b) => b.box[2] * b.box[3] - a.box[2] * a.box[3]);
    return withoutDuplicates(faces);
  }

  /**
   * The identity embedding (256 values) of the face in `box` (pixels of the image), or of the
   * largest face found.
   */
  async embedding(image: Buffer, box?: Box): Promise<Float32Array> {
    const rgb = await decodeRgb(image, Number.MAX_SAFE_INTEGER);
    if (!box) {
      const [face] = await this.detectRgb(rgb);
      if (!face) throw new EngineInputError('bad_request', 'No face found in the image');
      box = face.box;
    }
    return this.embeddingRgb(rgb, box);
  }

  /** The identity embedding of the face in `box` of decoded pixels. */
  async embeddingRgb(image: RgbImage, box: Box): Promise<Float32Array> {
    return new Float32Array(await this.runFaceres(image, box, EMBEDDING_NODE));
  }

  /**
   * Human's faceres age estimate of the face in `box` (years): the same crop as the embedding, and
   * Human's own reading of the 100-bin softmax (its two neighbouring bins interpolated). Coarse: it
   * answers in a few steps, so a low estimate is only a reason for a person to look.
   */
  async ageRgb(image: RgbImage, box: Box): Promise<number> {
    return ageOfBins(await this.runFaceres(image, box, AGE_NODE));
  }

  /** One faceres output node for the face in `box`, on the embedding's crop. */
  private async runFaceres(image: RgbImage, box: Box, node: string): Promise<Float32Array> {
    const { faceres } = await this.models();
    const crop = cropForEmbedding(image, box);
    return modelQueue.run(() => {
      const output = tf.tidy(() => {
        const pixels = tf.tensor4d(crop.data, [1, crop.height, crop.width, 3], 'int32');
        const input = tf.image.cropAndResize(
          tf.cast(pixels, 'float32') as tf.Tensor4D,
          [crop.box],
          [0],
          [EMBEDDING_INPUT, EMBEDDING_INPUT],
        );
        // faceres takes 0..255 values (not 0..1).
        return faceres.execute(input, node) as tf.Tensor;
      });
      try {
        return output.dataSync() as Float32Array;
      } finally {
        output.dispose();
      }
    });
  }

  /** Euclidean distance of two embeddings: same face ≈ 1–3, different faces ≈ 4–10. */
  distance(a: Float32Array, b: Float32Array): number {
    return faceDistance(a, b);
  }

  async close(): Promise<void> {
    const loaded = this.loaded;
    this.loaded = undefined;
    const models = await loaded?.catch(() => undefined);
    models?.faceres.dispose();
  }
}

/**
 * Euclidean distance of two face embeddings. (Cosine similarity does not separate faces here: the
 * features are ReLU outputs, all non-negative, so every pair scores ≈ 1.)
 */
export function faceDistance(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) throw new Error('Embeddings of different lengths');
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] - b[i]) ** 2;
  return Math.sqrt(sum);
}

/**
 * The part of the image under `box` (clipped to the image) and the box in the normalised
 * coordinates of tf.image.cropAndResize relative to that part: the same samples as cropping the
 * whole image, without moving the whole image into a tensor.
 */
function cropForEmbedding(image: RgbImage, box: Box): RgbImage & { box: [number, number, number, number] } {
  const { width: iw, height: ih } = image;
  const [x, y, w, h] = box;
  // Where cropAndResize on the whole image samples, in pixel-index coordinates.
  const sx1 = (x / iw) * (iw - 1);
  const sx2 = ((x + w) / iw) * (iw - 1);
  const sy1 = (y / ih) * (ih - 1);
  const sy2 = ((y + h) / ih) * (ih - 1);
  const x0 = Math.max(0, Math.floor(sx1));
  const y0 = Math.max(0, Math.floor(sy1));
  const x1 = Math.min(iw - 1, Math.ceil(sx2));
  const y1 = Math.min(ih - 1, Math.ceil(sy2));
  const cw = Math.max(2, x1 - x0 + 1);
  const ch = Math.max(2, y1 - y0 + 1);
  const data = new Uint8Array(cw * ch * 3);
  for (let row = 0; row < ch && y0 + row < ih; row++) {
    const from = ((y0 + row) * iw + x0) * 3;
    data.set(image.data.subarray(from, from + Math.min(cw, iw - x0) * 3), row * cw * 3);
  }
  return {
    data,
    width: cw,
    height: ch,
    box: [(sy1 - y0) / (ch - 1), (sx1 - x0) / (cw - 1), (sy2 - y0) / (ch - 1), (sx2 - x0) / (cw - 1)],
  };
}

/**
 * Drops a face whose box lies mostly inside a larger face's box: on a large face the detector
 * sometimes also reports a part of it (an eye and cheek) as a second, turned face.
 */
export function withoutDuplicates(faces: DetectedFace[]): DetectedFace[] {
  const kept: DetectedFace[] = [];
  for (const face of faces) {
    const [x, y, w, h] = face.box;
    const inside = kept.some(({ box: [kx, ky, kw, kh] }) => {
      const ix = Math.max(0, Math.min(x + w, kx + kw) - Math.max(x, kx));
      const iy = Math.max(0, Math.min(y + h, ky + kh) - Math.max(y, ky));
      return ix * iy > 0.4 * w * h;
    });
    if (!inside) kept.push(face);
  }
  return kept;
}

/** A rectangle of a picture, in its pixels. */
export interface Tile {
  left: number;
  top: number;
  width: number;
  height: number;
}

/**
 * The tiles of the tiled face search: overlapping squares of about half the picture's longer side,
 * overlapping by a third (a face cut by one tile's edge lies whole in the next). None when the
 * tiles would be too small to add anything, or when the largest face the whole pass found
 * (`largestFace`, its width) fills a fifth of the picture: a portrait has no faces too small for it.
 */
export function searchTiles(image: { width: number; height: number }, largestFace: number): Tile[] {
  const side = Math.round(Math.max(image.width, image.height) / 2);
  if (side < TILE_MIN_SIDE || largestFace >= TILE_SKIP_FACE * side * 2) return [];
  const step = Math.round((side * 2) / 3);
  const starts = (length: number) => {
    const out: number[] = [];
    for (let at = 0; ; at += step) {
      out.push(Math.max(0, Math.min(at, length - side)));
      if (at + side >= length) break;
    }
    return [...new Set(out)];
  };
  return starts(image.height).flatMap((top) =>
    starts(image.width).map((left) => ({
      left,
      top,
      width: Math.min(side, image.width - left),
      height: Math.min(side, image.height - top),
    })),
  );
}

/** The pixels of one tile of a picture. */
export function cropRgb(image: RgbImage, { left, top, width, height }: Tile): RgbImage {
  const data = new Uint8Array(width * height * 3);
  for (let row = 0; row < height; row++) {
    const from = ((top + row) * image.width + left) * 3;
    data.set(image.data.subarray(from, from + width * 3), row * width * 3);
  }
  return { data, width, height };
}

function shiftFace(face: DetectedFace, dx: number, dy: number): DetectedFace {
  const [x, y, w, h] = face.box;
  return {
    ...face,
    box: [x + dx, y + dy, w, h],
    landmarks: face.landmarks.map(([px, py]) => [px + dx, py + dy]),
  };
}

function scaleFace(face: DetectedFace, scale: number): DetectedFace {
  if (scale === 1) return face;
  return {
    ...face,
    box: face.box.map((v) => Math.round(v * scale)) as Box,
    landmarks: face.landmarks.map(([x, y]) => [x * scale, y * scale]),
  };
}

function humanConfig(modelBasePath: string, rotation: boolean): Partial<Config> {
  const off = { enabled: false };
  return {
    backend: 'wasm',
    wasmPath: wasmDir,
    modelBasePath,
    debug: false,
    warmup: 'none',
    // Every call is a separate still image: no result caching between calls.
    cacheSensitivity: 0,
    skipAllowed: false,
    face: {
      enabled: true,
      detector: {
        rotation,
        maxDetected: FACE_SWAP_LIMITS.maxFaces,
        minConfidence: 0.3,
        skipFrames: 0,
        skipTime: 0,
      },
      mesh: { enabled: true },
      // The embedding is computed by embeddingRgb (Human's faceres gives only age and gender).
      description: off,
      iris: off,
      emotion: off,
      antispoof: off,
      liveness: off,
      attention: off,
      gear: off,
    },
    body: off,
    hand: off,
    object: off,
    gesture: off,
    segmentation: off,
  };
}
