import sharp from 'sharp';
import { JobMessages } from '@studio/contracts';
import { EncodedImage, EngineInputError, InpaintRequest, RunContext } from './engine.port';
import { MAX_SIDE, RgbImage, decodeRgb, fromRgb } from './image-io';
import { exemplarFill } from './exemplar-fill';
import { loadOpenCv } from './opencv';
import { modelQueue } from './tf-runtime';

/** Radius (px) of the neighbourhood OpenCV's Telea inpainting looks at around each repainted pixel. */
export const INPAINT_RADIUS = 5;

/**
 * How far a mask's proportions may differ from the image's and still be taken for the image scaled:
 * a relative difference of the aspect ratios (the mask may come from a canvas of another size).
 */
const ASPECT_TOLERANCE = 0.01;

/** A binary mask: 255 where the image is repainted, 0 elsewhere; one byte per pixel. */
export interface BinaryMask {
  data: Uint8Array;
  width: number;
  height: number;
  /** Pixels set. */
  count: number;
}

/**
 * Repaints the masked part of an image from its surroundings: OpenCV's Telea inpainting (fast
 * marching) as the first guess, then an exemplar fill (exemplar-fill.ts: PatchMatch patches from
 * the picture itself, so textures continue). No model, so the prompt is ignored. The image is scaled down to fit 1024 px per side
 * (transparency flattened onto white); the mask is read at the image's size (see `decodeMask`).
 * The result is a PNG of the scaled image's size in which every pixel outside the mask is the scaled
 * input's own. OpenCV work runs through the process's model queue.
 */
export async function inpaintImage(
  request: Pick<InpaintRequest, 'image' | 'mask'>,
  context: RunContext = {},
  radius: number = INPAINT_RADIUS,
): Promise<EncodedImage> {
  const progress = (fraction: number) => context.onProgress?.(fraction);
  progress(0);
  const [image, original] = await Promise.all([
    decodeRgb(request.image, MAX_SIDE),
    orientedSize(request.image),
  ]);
  const mask = await decodeMask(request.mask, image.width, image.height, original);
  if (mask.count === 0) throw new EngineInputError('bad_request', JobMessages.maskRequired);
  context.signal?.throwIfAborted();
  progress(0.1);
  const { cv } = await loadOpenCv();
  const smooth = await modelQueue.run(() => {
    context.signal?.throwIfAborted();
    const src = cv.matFromArray(image.height, image.width, cv.CV_8UC3, image.data);
    const holes = cv.matFromArray(mask.height, mask.width, cv.CV_8UC1, mask.data);
    const dst = new cv.Mat();
    try {
      cv.inpaint(src, holes, dst, radius, cv.INPAINT_TELEA);
      return new Uint8Array(dst.data); // a copy: the Mat's data lives in the wasm heap
    } finally {
      src.delete();
      holes.delete();
      dst.delete();
    }
  });
  progress(0.2);
  // Telea's smooth fill is the first guess; the exemplar fill carries the texture around the hole
  // into it (the same queue: it is CPU work that would otherwise compete with the models).
  const painted = await modelQueue.run(
    () =>
      exemplarFill(image.data, image.width, image.height, mask.data, smooth, {
        seed: 1,
        signal: context.signal,
        onProgress: (f) => progress(0.2 + 0.7 * f),
      }) ?? smooth,
  );
  progress(0.9);
  const out = compositeThroughMask(image, painted, mask);
  const data = await fromRgb(out).png().toBuffer();
  progress(1);
  return { data, format: 'png', width: out.width, height: out.height };
}

/**
 * Reads a mask at `width` x `height`: a pixel is repainted when it is opaque at all (alpha > 0) and
 * bright (Rec. 601 luma > 127), so white strokes on a transparent or a black canvas both work. A mask
 * of another size with the proportions of the image (`original`: the image's size before scaling)
 * is scaled to fit (linear, so an edge grows by at most a pixel); other proportions are refused.
 */
export async function decodeMask(
  mask: Buffer,
  width: number,
  height: number,
  original: { width: number; height: number } = { width, height },
): Promise<BinaryMask> {
  const size = await orientedSize(mask);
  if (!sameProportions(size, original)) throw new EngineInputError('bad_request', JobMessages.maskSize);
  let pipeline = sharp(mask).rotate();
  if (size.width !== width || size.height !== height) {
    pipeline = pipeline.resize(width, height, { fit: 'fill', kernel: sharp.kernel.linear });
  }
  let decoded: { data: Buffer; info: sharp.OutputInfo };
  try {
    decoded = await pipeline.toColourspace('srgb').ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  } catch (error) {
    throw new EngineInputError('bad_image', JobMessages.badImage, { cause: error });
  }
  const { data: rgba, info } = decoded;
  if (info.channels !== 4 || info.width !== width || info.height !== height) {
    throw new Error(`Unexpected mask pixels: ${info.width}x${info.height}x${info.channels}`);
  }
  const data = new Uint8Array(width * height);
  let count = 0;
  for (let i = 0, o = 0; i < data.length; i++, o += 4) {
    const luma = 0.299 * rgba[o] + 0.587 * rgba[o + 1] + 0.114 * rgba[o + 2];
    if (rgba[o + 3] > 0 && luma > 127) {
      data[i] = 255;
      count++;
    }
  }
  return { data, width, height, count };
}

/** The image with the masked pixels taken from `painted` (same size, RGB). */
export function compositeThroughMask(image: RgbImage, painted: Uint8Array, mask: BinaryMask): RgbImage {
  const out = new Uint8Array(image.data);
  for (let i = 0; i < mask.data.length; i++) {
    if (!mask.data[i]) continue;
    const o = i * 3;
    out[o] = painted[o];
    out[o + 1] = painted[o + 1];
    out[o + 2] = painted[o + 2];
  }
  return { data: out, width: image.width, height: image.height };
}

/** Whether a is b scaled: equal aspect ratios up to rounding to whole pixels or ASPECT_TOLERANCE. */
function sameProportions(
  a: { width: number; height: number },
  b: { width: number; height: number },
): boolean {
  const cross = Math.abs(a.width * b.height - a.height * b.width);
  // Rounding each side of a to whole pixels moves the cross product by up to (b.w + b.h) / 2.
  return cross <= b.width + b.height || cross <= ASPECT_TOLERANCE * a.height * b.width;
}

/** Width and height as displayed (EXIF orientation applied). Unreadable bytes: bad_image. */
async function orientedSize(image: Buffer): Promise<{ width: number; height: number }> {
  try {
    const { autoOrient } = await sharp(image).metadata();
    return { width: autoOrient.width, height: autoOrient.height };
  } catch (error) {
    throw new EngineInputError('bad_image', JobMessages.badImage, { cause: error });
  }
}
