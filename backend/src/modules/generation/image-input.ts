import { BadRequestException, PayloadTooLargeException } from '@nestjs/common';
import sharp from 'sharp';
import { IMAGE_SIDE_MAX, isDecompressionBomb, JobMessages, UPLOAD_LIMITS } from '@studio/contracts';
import { DecodeBudgetError, ImageDecoder, UnreadableImageError } from '@studio/inference';

/** An image as bytes (a data URL) or as an upload streamed to a temp file. */
export type ImageSource = Buffer | { path: string; size: number };

const sizeOf = (source: ImageSource) => (Buffer.isBuffer(source) ? source.length : source.size);
const inputOf = (source: ImageSource) => (Buffer.isBuffer(source) ? source : source.path);

export interface NormalizedImage {
  data: Buffer;
  width: number;
  height: number;
}

const ACCEPTED: ReadonlySet<string> = new Set(UPLOAD_LIMITS.imageTypes);

/** One decoder process per API process (started on the first upload; see ImageDecoder). */
const decoder = new ImageDecoder();

/**
 * Checks an uploaded image and brings it to the form every engine takes: the type comes from the
 * bytes (sharp reads the magic numbers, the file name is ignored), the decoded size is capped and
 * decompression bombs are refused from the header, EXIF orientation is applied, and neither side
 * exceeds `maxSide` (1024 px unless the tool works at a larger size, as the face swap's target
 * does). Decoding runs in the decoder process, under its memory ceiling, never in the API's.
 */
export async function normalizeImage(
  source: ImageSource | undefined,
  maxSide: number = IMAGE_SIDE_MAX,
): Promise<NormalizedImage> {
  if (!source || sizeOf(source) === 0) throw new BadRequestException(JobMessages.imageRequired);
  await checkHeader(source);
  return decodeUpload({ input: inputOf(source), maxPixels: UPLOAD_LIMITS.imagePixels, maxSide });
}

/**
 * The header checks of normalizeImage for every image of a request at once (missing ones are left
 * to it), before any of them is decoded: a bomb in the last field is refused without waiting for
 * the decodes of the others.
 */
export async function checkImages(...sources: (ImageSource | undefined)[]): Promise<void> {
  for (const source of sources) if (source && sizeOf(source) > 0) await checkHeader(source);
}

/** Type, bytes, pixels and pixels per byte, from the header alone (no decoding). */
async function checkHeader(source: ImageSource): Promise<void> {
  if (sizeOf(source) > UPLOAD_LIMITS.imageBytes)
    throw new PayloadTooLargeException(JobMessages.imageTooLarge);
  let format: string | undefined;
  let pixels = 0;
  try {
    const meta = await sharp(inputOf(source), { limitInputPixels: false }).metadata();
    format = meta.format;
    pixels = (meta.width ?? 0) * (meta.height ?? 0);
  } catch {
    throw new BadRequestException(JobMessages.badImage);
  }
  if (!format || !ACCEPTED.has(format)) throw new BadRequestException(JobMessages.badImage);
  if (pixels === 0) throw new BadRequestException(JobMessages.badImage);
  if (pixels > UPLOAD_LIMITS.imagePixels) throw new PayloadTooLargeException(JobMessages.imageTooLarge);
  if (isDecompressionBomb(format, pixels, sizeOf(source)))
    throw new PayloadTooLargeException(JobMessages.imageTooSparse);
}

async function decodeUpload(request: Parameters<ImageDecoder['decode']>[0]): Promise<NormalizedImage> {
  try {
    return await decoder.decode(request);
  } catch (err) {
    if (err instanceof DecodeBudgetError) throw new PayloadTooLargeException(JobMessages.imageTooLarge);
    // Truncated or corrupt image data that the header did not reveal.
    if (err instanceof UnreadableImageError) throw new BadRequestException(JobMessages.badImage);
    throw err;
  }
}

/**
 * The painted mask, checked like any image and brought to the size of the image it belongs to:
 * white (opaque, bright) means repaint, everything else keeps the original pixels.
 */
export async function normalizeMask(
  data: ImageSource | undefined,
  width: number,
  height: number,
): Promise<Buffer> {
  if (!data || sizeOf(data) === 0) throw new BadRequestException(JobMessages.maskRequired);
  const checked = await normalizeImage(data);
  const filled = await decodeUpload({
    input: checked.data,
    maxPixels: UPLOAD_LIMITS.imagePixels,
    fill: { width, height },
  });
  return filled.data;
}
