import sharp from 'sharp';
import { JobMessages } from '@studio/contracts';
import { EngineInputError } from './engine.port';

/** The local engine works on images of at most this many pixels per side (larger are scaled down). */
export const MAX_SIDE = 1024;

/** Decoded pixels: 8-bit RGB, row-major, no padding. */
export interface RgbImage {
  data: Uint8Array;
  width: number;
  height: number;
}

/**
 * Decodes an encoded image to RGB: EXIF orientation applied, transparency flattened onto white,
 * scaled down (never up) to fit `maxSide`. Unreadable bytes are the user's problem: bad_image.
 */
export async function decodeRgb(image: Buffer, maxSide: number = MAX_SIDE): Promise<RgbImage> {
  try {
    const { data, info } = await sharp(image)
      .rotate()
      .resize({ width: maxSide, height: maxSide, fit: 'inside', withoutEnlargement: true })
      .flatten({ background: '#ffffff' })
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 3) throw new Error(`expected 3 channels, got ${info.channels}`);
    return {
      data: new Uint8Array(data.buffer, data.byteOffset, data.length),
      width: info.width,
      height: info.height,
    };
  } catch (error) {
    throw new EngineInputError('bad_image', JobMessages.badImage, { cause: error });
  }
}

/** A sharp pipeline reading raw RGB pixels. */
export function fromRgb(image: RgbImage): sharp.Sharp {
  return sharp(image.data, { raw: { width: image.width, height: image.height, channels: 3 } });
}
