import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { JobMessages } from '@studio/contracts';
import { EncodedImage, EngineInputError, RunContext } from './engine.port';
import { MAX_SIDE } from './image-io';

/** Opacity of the noise layer laid over each copy (the spec's rule: 5%). */
export const CLONE_NOISE_OPACITY = 0.05;

/**
 * Makes `amount` near-identical copies of an image: each is the image (scaled down to fit 1024 px
 * per side, proportions kept) with its own layer of random grey noise composited at 5% opacity.
 * PNG output, transparency kept. Progress is reported after each copy.
 */
export async function cloneImage(
  image: Buffer,
  amount: number,
  context: RunContext = {},
): Promise<EncodedImage[]> {
  if (!Number.isInteger(amount) || amount < 1) {
    throw new EngineInputError('bad_request', `The number of copies must be a positive whole number`);
  }
  let decoded: { data: Buffer; info: sharp.OutputInfo };
  try {
    decoded = await sharp(image)
      .rotate()
      .resize({ width: MAX_SIDE, height: MAX_SIDE, fit: 'inside', withoutEnlargement: true })
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
  } catch (error) {
    throw new EngineInputError('bad_image', JobMessages.badImage, { cause: error });
  }
  const { width, height, channels } = decoded.info;
  const results: EncodedImage[] = [];
  for (let i = 0; i < amount; i++) {
    context.signal?.throwIfAborted();
    const data = await sharp(decoded.data, { raw: { width, height, channels } })
      .composite([{ input: greyNoise(width, height), raw: { width, height, channels: 4 } }])
      .png()
      .toBuffer();
    results.push({ data, format: 'png', width, height });
    context.onProgress?.((i + 1) / amount);
  }
  return results;
}

/** An RGBA layer of random grey pixels, each with alpha = CLONE_NOISE_OPACITY. */
function greyNoise(width: number, height: number): Buffer {
  const grey = randomBytes(width * height);
  const alpha = Math.round(CLONE_NOISE_OPACITY * 255);
  const layer = Buffer.alloc(width * height * 4);
  for (let p = 0, o = 0; p < grey.length; p++, o += 4) {
    layer[o] = layer[o + 1] = layer[o + 2] = grey[p];
    layer[o + 3] = alpha;
  }
  return layer;
}
