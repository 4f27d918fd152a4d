import sharp from 'sharp';
import type { ContentCheck } from '@studio/contracts';
import { ContentClassifierPort } from '../src/modules/content-safety';

/**
 * Test images are marked, never sexual: an 8 x 8 block of one colour in the top-left corner says
 * what the double answers. Magenta: classified sexual; cyan: one face the age model puts at 15.
 * Anything else: neutral, no face. (The real classifier is tested on the neutral images in
 * libs/inference/src/content-classifier.spec.ts and content-safety.int-spec.ts.)
 */
export const MARKS = {
  sexual: { r: 255, g: 0, b: 255 },
  minorFace: { r: 0, g: 255, b: 255 },
} as const;
export type Mark = keyof typeof MARKS;

const MARK_SIDE = 8;

/**
 * How far from the mark's colour a pixel may be and still count: a mark survives a video's lossy
 * encoding and a frame's JPEG when it is larger than one chroma block (`side` 32).
 */
const MARK_TOLERANCE = 24;

/** A copy of `image` (PNG) with the mark in its top-left corner, `side` px square (a video's frames: 32). */
export async function marked(image: Buffer, mark: Mark, side = MARK_SIDE): Promise<Buffer> {
  const block = await sharp({
    create: { width: side, height: side, channels: 3, background: MARKS[mark] },
  })
    .png()
    .toBuffer();
  return sharp(image)
    .composite([{ input: block, left: 0, top: 0 }])
    .png()
    .toBuffer();
}

export const NEUTRAL_SCORES = { drawing: 0.01, hentai: 0, neutral: 0.98, porn: 0.005, sexy: 0.005 };
const SEXUAL_SCORES = { drawing: 0, hentai: 0.02, neutral: 0.03, porn: 0.9, sexy: 0.05 };

export class MarkedImageClassifier extends ContentClassifierPort {
  /** How many images it was asked about (a test can see that the check ran). */
  seen = 0;

  async inspect(images: Buffer[]): Promise<ContentCheck[]> {
    return Promise.all(images.map((image) => this.inspectOne(image)));
  }

  private async inspectOne(image: Buffer): Promise<ContentCheck> {
    this.seen += 1;
    // An image smaller than the mark cannot carry one (the scripted engines' 4 x 4 outputs).
    const { width = 0, height = 0 } = await sharp(image).metadata();
    if (width < MARK_SIDE || height < MARK_SIDE) return { scores: NEUTRAL_SCORES, faces: [] };
    const { data, info } = await sharp(image)
      .extract({ left: 0, top: 0, width: MARK_SIDE, height: MARK_SIDE })
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const is = ({ r, g, b }: { r: number; g: number; b: number }) => {
      for (let i = 0; i < info.width * info.height * 3; i += 3) {
        const off = Math.max(Math.abs(data[i] - r), Math.abs(data[i + 1] - g), Math.abs(data[i + 2] - b));
        if (off > MARK_TOLERANCE) return false;
      }
      return true;
    };
    if (is(MARKS.sexual)) return { scores: SEXUAL_SCORES, faces: [] };
    if (is(MARKS.minorFace)) return { scores: NEUTRAL_SCORES, faces: [{ box: [10, 10, 40, 40], age: 15 }] };
    return { scores: NEUTRAL_SCORES, faces: [] };
  }
}
