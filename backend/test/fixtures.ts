import sharp from 'sharp';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';

/** The sample images and videos libs/inference keeps for its own tests. */
export const FIXTURES = join(__dirname, '../../libs/inference/fixtures');

/** The bytes of one of those samples. */
export const fixture = (name: string): Buffer => readFileSync(join(FIXTURES, name));

/** A square crop around a face box [x, y, w, h] of a fixture, `scale` times the box, at `size` px. */
export async function faceCrop(name: string, box: number[], size: number, scale = 1.6): Promise<Buffer> {
  const image = sharp(fixture(name));
  const { width = 0, height = 0 } = await image.metadata();
  const side = Math.round(Math.max(box[2], box[3]) * scale);
  const left = Math.max(0, Math.min(width - side, Math.round(box[0] + box[2] / 2 - side / 2)));
  const top = Math.max(0, Math.min(height - side, Math.round(box[1] + box[3] / 2 - side / 2)));
  return image.extract({ left, top, width: side, height: side }).resize(size, size).png().toBuffer();
}

/**
 * A Magic Brush mask of width x height: white (paint here) inside `box`, transparent elsewhere.
 */
export async function rectangleMask(
  width: number,
  height: number,
  box: { left: number; top: number; w: number; h: number },
): Promise<Buffer> {
  const white = await sharp({
    create: { width: box.w, height: box.h, channels: 4, background: { r: 255, g: 255, b: 255, alpha: 1 } },
  })
    .png()
    .toBuffer();
  return sharp({ create: { width, height, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
    .composite([{ input: white, left: box.left, top: box.top }])
    .png()
    .toBuffer();
}

/**
 * Mean absolute difference per channel between two same-size images in the middle half of a face
 * box [x, y, w, h]: how much a face swap changed that face (0 when untouched).
 */
export async function regionDifference(a: Buffer, b: Buffer, face: number[]): Promise<number> {
  const box = [face[0] + face[2] / 4, face[1] + face[3] / 4, face[2] / 2, face[3] / 2].map(Math.round);
  const cut = (image: Buffer) =>
    sharp(image)
      .removeAlpha()
      .extract({ left: box[0], top: box[1], width: box[2], height: box[3] })
      .raw()
      .toBuffer();
  const [x, y] = await Promise.all([cut(a), cut(b)]);
  let sum = 0;
  for (let i = 0; i < x.length; i++) sum += Math.abs(x[i] - y[i]);
  return sum / x.length;
}

/**
 * A real PNG of width x height transparent black pixels: a few hundred KB that decode to 4 bytes
 * a pixel (the pixel bomb of issue 35 is zeroPng(6000, 6000), 140 KB for 144 MB of pixels).
 */
export function zeroPng(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
    .png({ compressionLevel: 9 })
    .toBuffer();
}

/** A valid PNG whose header claims width x height (the pixels are never there): a pixel bomb. */
export function pngClaiming(width: number, height: number, real: Buffer): Buffer {
  const out = Buffer.from(real);
  // IHDR is the first chunk: length(4) type(4) at offset 8; width/height at 16 and 20, CRC at 29
  out.writeUInt32BE(width, 16);
  out.writeUInt32BE(height, 20);
  out.writeUInt32BE(crc32(out.subarray(12, 29)), 29);
  return out;
}

/**
 * Writes a test video to `path`: a test face zooming slowly (so frames differ), `size` px square,
 * `fps` frames a second, `seconds` long, with a 440 Hz tone as audio (H.264 + AAC).
 */
export function writeTestVideo(path: string, seconds: number, size = 240, fps = 10): string {
  execFileSync('ffmpeg', [
    '-y',
    '-loglevel',
    'error',
    '-loop',
    '1',
    '-i',
    join(FIXTURES, 'cgi-model-22.jpg'),
    '-f',
    'lavfi',
    '-i',
    `sine=frequency=440:duration=${seconds}`,
    '-t',
    String(seconds),
    '-vf',
    `scale=${size}:-2,zoompan=z='1+0.002*on':d=1:s=${size}x${size}:fps=${fps}`,
    '-c:v',
    'libx264',
    '-pix_fmt',
    'yuv420p',
    '-c:a',
    'aac',
    '-shortest',
    path,
  ]);
  return path;
}
