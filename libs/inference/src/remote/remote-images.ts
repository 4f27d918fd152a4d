import sharp from 'sharp';
import { DECODE_LIMITS, JobMessages, UPLOAD_LIMITS } from '@studio/contracts';
import { EncodedImage, EngineInputError } from '../engine.port';
import { markAiGenerated } from '../provenance';
import { A1111Error } from './a1111-error';

/** An image ready to send: base64 bytes and the size the server will see. */
export interface PreparedImage {
  base64: string;
  width: number;
  height: number;
}

const SENDABLE = new Set(['jpeg', 'png', 'webp']);

/** Largest width or height a generate request may ask for. */
export const MAX_GENERATE_SIDE = 2048;
const MIN_GENERATE_SIDE = 64;

/** The message when a face swap returns the target unchanged: it does not say which image lacked a face. */
export const NO_FACE_EITHER = 'No face found in the face image or in the target image';

/** JPEG quality of face swap results (as the local engine). */
export const SWAP_JPEG_QUALITY = 92;

/**
 * Makes an input image safe to send: the original bytes when the server decodes them as they
 * are (JPEG, PNG or WebP, upright, opaque, within `maxSide`); otherwise a PNG that is rotated
 * upright by its EXIF orientation (the server's PIL would ignore it), flattened onto white and
 * scaled down to fit `maxSide`. Unreadable bytes: EngineInputError('bad_image').
 */
export async function prepareImage(image: Buffer, maxSide: number): Promise<PreparedImage> {
  let meta: sharp.Metadata;
  try {
    meta = await sharp(image, { limitInputPixels: UPLOAD_LIMITS.imagePixels }).metadata();
  } catch (error) {
    throw new EngineInputError('bad_image', JobMessages.badImage, { cause: error });
  }
  if (!meta.width || !meta.height) throw new EngineInputError('bad_image', JobMessages.badImage);
  const upright = (meta.orientation ?? 1) === 1;
  if (
    upright &&
    !meta.hasAlpha &&
    SENDABLE.has(meta.format ?? '') &&
    Math.max(meta.width, meta.height) <= maxSide
  ) {
    return { base64: image.toString('base64'), width: meta.width, height: meta.height };
  }
  try {
    const { data, info } = await sharp(image, { limitInputPixels: UPLOAD_LIMITS.imagePixels })
      .rotate()
      .resize({ width: maxSide, height: maxSide, fit: 'inside', withoutEnlargement: true })
      .flatten({ background: '#ffffff' })
      .png()
      .toBuffer({ resolveWithObject: true });
    return { base64: data.toString('base64'), width: info.width, height: info.height };
  } catch (error) {
    throw new EngineInputError('bad_image', JobMessages.badImage, { cause: error });
  }
}

/**
 * An inpainting mask for an image of `width`×`height`: upright, transparency as black, grey,
 * stretched to the image's size, PNG. A mask with nothing to repaint: EngineInputError.
 */
export async function prepareMask(mask: Buffer, width: number, height: number): Promise<PreparedImage> {
  let data: Buffer;
  let max: number;
  try {
    data = await sharp(mask)
      .rotate()
      .flatten({ background: '#000000' })
      .resize(width, height, { fit: 'fill' })
      .toColourspace('b-w')
      .png()
      .toBuffer();
    max = (await sharp(data).stats()).channels[0].max;
  } catch (error) {
    throw new EngineInputError('bad_image', JobMessages.badImage, { cause: error });
  }
  if (max < 8) throw new EngineInputError('bad_request', 'The mask is empty: paint the area to change');
  return { base64: data.toString('base64'), width, height };
}

/** A generate request's size, checked the same way by every remote engine. */
export function checkGenerateSize(width: number, height: number): void {
  for (const side of [width, height]) {
    if (!Number.isInteger(side) || side < MIN_GENERATE_SIDE || side > MAX_GENERATE_SIDE) {
      throw new EngineInputError(
        'bad_request',
        `Image sizes must be whole numbers from ${MIN_GENERATE_SIDE} to ${MAX_GENERATE_SIDE}`,
      );
    }
  }
}

/** Stable Diffusion works in multiples of 8; the result is stretched back to the request. */
export function roundTo8(value: number): number {
  return Math.max(MIN_GENERATE_SIDE, Math.round(value / 8) * 8);
}

/** A super-resolution request's factor: 2 unless given, from 1 to 8. */
export function upscaleFactor(scale: number | undefined): number {
  const factor = scale ?? 2;
  if (!Number.isFinite(factor) || factor < 1 || factor > 8) {
    throw new EngineInputError('bad_request', 'The upscaling factor must be from 1 to 8');
  }
  return factor;
}

/** ReActor (and most face swap models) answer "no face" by returning the target unchanged. */
export async function refuseUnchanged(result: Buffer, targetBase64: string): Promise<void> {
  const unchanged = await samePixels(result, Buffer.from(targetBase64, 'base64')).catch(() => false);
  if (unchanged) throw new EngineInputError('no_face_target', NO_FACE_EITHER);
}

/** How each tool's result is finished (format, provenance mark, size), the same on every engine. */
export const FINISH_AS = {
  generated: (width: number, height: number): FinishOptions => ({
    format: 'png',
    aiGenerated: 'image generation',
    size: { width, height },
  }),
  inpainted: (image: PreparedImage): FinishOptions => ({
    format: 'png',
    aiGenerated: 'inpainting',
    size: { width: image.width, height: image.height },
  }),
  /** For servers whose upscale model has a fixed factor (×4 for Real-ESRGAN): brought to the scale asked. */
  upscaled: (image: PreparedImage, scale: number): FinishOptions => ({
    format: 'png',
    size: { width: Math.round(image.width * scale), height: Math.round(image.height * scale) },
  }),
  faceSwapped: { format: 'jpeg', aiGenerated: 'face swap' } as FinishOptions,
};

export interface FinishOptions {
  format: 'png' | 'jpeg';
  /** Marks the output as AI-generated (see provenance.ts) with this description. */
  aiGenerated?: string;
  /** Resizes the output to exactly this size when the server's differs. */
  size?: { width: number; height: number };
}

/**
 * Decodes a base64 image from the server and re-encodes it: the server's metadata (A1111 writes
 * the prompt and settings into PNG text chunks) is dropped, the provenance mark added. An
 * undecodable answer is the server's fault: a retryable A1111Error.
 */
export async function finishImage(base64: string, options: FinishOptions): Promise<EncodedImage> {
  const bytes = decodeBase64(base64);
  try {
    // a server's answer is decoded within the largest output's budget (sharp's default is 268 MP)
    let pipeline = sharp(bytes, { limitInputPixels: DECODE_LIMITS.outputImagePixels });
    const meta = await pipeline.metadata();
    const { size } = options;
    if (size && (meta.width !== size.width || meta.height !== size.height)) {
      pipeline = pipeline.resize(size.width, size.height, { fit: 'fill' });
    }
    if (options.aiGenerated) pipeline = markAiGenerated(pipeline, options.aiGenerated);
    pipeline =
      options.format === 'jpeg'
        ? pipeline.flatten({ background: '#ffffff' }).jpeg({ quality: SWAP_JPEG_QUALITY })
        : pipeline.png();
    const { data, info } = await pipeline.toBuffer({ resolveWithObject: true });
    return { data, format: options.format, width: info.width, height: info.height };
  } catch (error) {
    throw new A1111Error('protocol', 'The A1111 server sent an image that cannot be decoded', undefined, {
      cause: error,
    });
  }
}

/** Base64 text (optionally a data: URL) to bytes. */
export function decodeBase64(text: string): Buffer {
  const comma = text.startsWith('data:') ? text.indexOf(',') : -1;
  return Buffer.from(comma >= 0 ? text.slice(comma + 1) : text, 'base64');
}

/**
 * Whether two encoded images show the same pixels, allowing for decoder differences: at most
 * one pixel in 10,000 differs by more than 24 levels in a channel. ReActor answers "no face" by
 * returning the target unchanged.
 */
export async function samePixels(a: Buffer, b: Buffer): Promise<boolean> {
  const [x, y] = await Promise.all(
    [a, b].map((image) => sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true })),
  );
  if (
    x.info.width !== y.info.width ||
    x.info.height !== y.info.height ||
    x.info.channels !== y.info.channels
  ) {
    return false;
  }
  const channels = x.info.channels;
  const pixels = x.info.width * x.info.height;
  const allowed = Math.floor(pixels / 10_000);
  let differing = 0;
  for (let p = 0; p < pixels; p++) {
    for (let c = 0; c < channels; c++) {
      const o = p * channels + c;
      if (Math.abs(x.data[o] - y.data[o]) > 24) {
        if (++differing > allowed) return false;
        break;
      }
    }
  }
  return true;
}
