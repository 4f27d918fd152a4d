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
      const nsfwjs = require('nsfwjs') as { load(name: 'MobileNetV2'): Promise<NsfwModel> };
      const model = await nsfwjs.load('MobileNetV2');
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

const round = (value: number) => Math.round(value * 10_000) / 10_000;
