import path from 'node:path';
import sharp from 'sharp';
import { initTf, modelQueue, tf } from './tf-runtime';
import type { EngineLogger } from './logger';
import { silentLogger } from './logger';

/** nsfwjs' five classes, as stored with items and jobs. */
export const CONTENT_CLASSES = ['drawing', 'hentai', 'neutral', 'porn', 'sexy'] as const;
export type ContentClass = (typeof CONTENT_CLASSES)[number];
export type ContentScores = Record<ContentClass, number>;

/** nsfwjs' MobileNetV2 takes 224 x 224 RGB. */
const INPUT_SIDE = 224;

interface NsfwModel {
  classify(image: tf.Tensor3D, topk?: number): Promise<{ className: string; probability: number }[]>;
  dispose(): void;
}

/**
 * Sexual-content scores of an image with nsfwjs (MIT): its MobileNetV2 model ships inside the npm
 * package as JavaScript modules and is loaded from node_modules, never from a URL. Runs on the
 * thread's tfjs (wasm backend) through its model queue, so only in engine pool threads.
 */
export class NsfwClassifier {
  private loaded?: Promise<NsfwModel>;

  constructor(private readonly logger: EngineLogger = silentLogger) {}

  load(): Promise<NsfwModel> {
    this.loaded ??= (async () => {
      const started = Date.now();
      await initTf();
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { NSFWJS } = require('nsfwjs') as {
        NSFWJS: new (
          model: tf.io.IOHandler,
          options: { size: number },
        ) => NsfwModel & { load(): Promise<void> };
      };
      // The same MobileNetV2 files nsfwjs.load('MobileNetV2') reads, through an IOHandler of our
      // own: nsfwjs' loader passes each weight shard (a 3.5 MB base64 string) through TypeScript's
      // __importStar, which copies the string's 3.5 million characters one by one as properties,
      // 6-13 s of a thread's CPU for a 0.5 s load.
      const model = new NSFWJS(bundledModel(MOBILENET_V2), { size: INPUT_SIDE });
      await model.load(); // nsfwjs' load also runs one prediction, so the first check is not slower
      this.logger.log(`Content classifier (nsfwjs MobileNetV2) loaded in ${Date.now() - started} ms`);
      return model;
    })().catch((error: unknown) => {
      this.loaded = undefined;
      throw error;
    });
    return this.loaded;
  }

  async classify(image: Buffer): Promise<ContentScores> {
    const model = await this.load();
    // The whole picture, squeezed to the model's square (as nsfwjs' own examples feed it).
    const pixels = await sharp(image)
      .autoOrient()
      .resize(INPUT_SIDE, INPUT_SIDE, { fit: 'fill' })
      .removeAlpha()
      .raw()
      .toBuffer();
    return modelQueue.run(async () => {
      const input = tf.tensor3d(new Int32Array(pixels), [INPUT_SIDE, INPUT_SIDE, 3], 'int32');
      try {
        const predictions = await model.classify(input, CONTENT_CLASSES.length);
        const scores = Object.fromEntries(CONTENT_CLASSES.map((c) => [c, 0])) as ContentScores;
        for (const p of predictions) scores[p.className.toLowerCase() as ContentClass] = round(p.probability);
        return scores;
      } finally {
        input.dispose();
      }
    });
  }

  async close(): Promise<void> {
    const loaded = this.loaded;
    this.loaded = undefined;
    (await loaded?.catch(() => undefined))?.dispose();
  }
}

/** nsfwjs' model bundles: dist/models/<name>/model.min.js and one <shard>.min.js per weight file. */
const MOBILENET_V2 = 'mobilenet_v2';

/**
 * An IOHandler reading a model nsfwjs bundles in its package (UMD modules: the model JSON, and each
 * weight shard as a base64 string), required by file path: its "exports" map hides them.
 */
function bundledModel(name: string): tf.io.IOHandler {
  return {
    load: async () => {
      const dir = path.resolve(path.dirname(require.resolve('nsfwjs')), '..', 'models', name);
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const modelJson = require(path.join(dir, 'model.min.js')) as tf.io.ModelJSON;
      const manifest = modelJson.weightsManifest ?? [];
      const shards = manifest
        .flatMap((group) => group.paths)
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        .map((shard) => Buffer.from(require(path.join(dir, `${shard}.min.js`)) as string, 'base64'));
      const weights = Buffer.concat(shards);
      return {
        modelTopology: modelJson.modelTopology,
        format: modelJson.format,
        generatedBy: modelJson.generatedBy,
        convertedBy: modelJson.convertedBy,
        weightSpecs: manifest.flatMap((group) => group.weights),
        weightData: weights.buffer.slice(
          weights.byteOffset,
          weights.byteOffset + weights.byteLength,
        ) as ArrayBuffer,
      };
    },
  };
}

const round = (value: number) => Math.round(value * 10_000) / 10_000;
