import { IMAGE_SIDE_MAX } from '@studio/contracts';
import { IMAGE_EXTENSIONS } from './imageTypes';

/** An image picked by the user, ready to upload and to preview. */
export interface PickedImage {
  /** The bytes to upload: the original file when it already fits, else a re-encoded copy. */
  blob: Blob;
  /** A data URL of the same bytes, for the preview and for JSON uploads. */
  dataUrl: string;
  width: number;
  height: number;
  /** A file name with the extension of the uploaded bytes. */
  fileName: string;
}

/** Types the server accepts are kept; anything else the browser reads is re-encoded as PNG. */
const KEPT_TYPES = IMAGE_EXTENSIONS;

/** The largest size within `max` x `max` with the same proportions; never enlarges. */
export function fitWithin(width: number, height: number, max = IMAGE_SIDE_MAX) {
  const ratio = Math.min(1, max / width, max / height);
  return {
    width: Math.max(1, Math.round(width * ratio)),
    height: Math.max(1, Math.round(height * ratio)),
  };
}

/**
 * Decodes the file in the browser and, when a side is above `max`, draws it on a canvas at the
 * largest size that fits (spec section 5: neither side above 1024 px, proportions kept).
 * Rejects when the file is not an image the browser can read.
 */
export async function scaleImage(file: File, max = IMAGE_SIDE_MAX): Promise<PickedImage> {
  const image = await decode(file);
  const size = fitWithin(image.naturalWidth, image.naturalHeight, max);
  const keptExtension = KEPT_TYPES[file.type];
  const fits = size.width === image.naturalWidth && size.height === image.naturalHeight;
  if (fits && keptExtension) {
    return { blob: file, dataUrl: await readDataUrl(file), ...size, fileName: `image.${keptExtension}` };
  }
  const type = keptExtension ? file.type : 'image/png';
  const canvas = document.createElement('canvas');
  canvas.width = size.width;
  canvas.height = size.height;
  const context = canvas.getContext('2d');
  if (!context) throw new Error('This browser cannot draw images');
  context.imageSmoothingQuality = 'high';
  context.drawImage(image, 0, 0, size.width, size.height);
  const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, type, 0.92));
  if (!blob) throw new Error('The image could not be encoded');
  return { blob, dataUrl: await readDataUrl(blob), ...size, fileName: `image.${KEPT_TYPES[type]}` };
}

function decode(file: File): Promise<HTMLImageElement> {
  const url = URL.createObjectURL(file);
  return new Promise<HTMLImageElement>((resolve, reject) => {
    const image = new Image();
    image.onload = () => resolve(image);
    image.onerror = () => reject(new Error('Not an image'));
    image.src = url;
  }).finally(() => URL.revokeObjectURL(url));
}

function readDataUrl(blob: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error('The image could not be read'));
    reader.readAsDataURL(blob);
  });
}
