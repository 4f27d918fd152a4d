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
  if (sizeOf(source) > UPLOAD_LIMITS.imageBytes)
    throw new PayloadTooLargeException(JobMessages.imageTooLarge);
  const data = inputOf(source);
  let format: string | undefined;
  let pixels = 0;
  try {
    // The header alone (no decoding), so a pixel bomb is measured here and refused below.
    const meta = await sharp(data, { limitInputPixels: false }).metadata();
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
  return decodeUpload({ input: data, maxPixels: UPLOAD_LIMITS.imagePixels, maxSide });
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
