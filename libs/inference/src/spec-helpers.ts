import { readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { gradientPng } from './remote/fake-server-kit';

/** Test-only helpers (excluded from the build). */

export const fixture = (name: string): Buffer => readFileSync(path.join(__dirname, '..', 'fixtures', name));

export const FIXTURES = [
  'ai-face.jpg',
  'ai-upper.jpg',
  'cgi-model-1.jpg',
  'cgi-model-3.jpg',
  'cgi-model-22.jpg',
];

/** A smooth colour gradient without any face. */
export function gradientImage(width = 320, height = 240): Promise<Buffer> {
  return gradientPng(width, height);
}

/** What `promise` rejects with; fails the test when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** An inpainting mask: black (keep) with one white (repaint) rectangle, PNG. */
export function boxMask(
  width: number,
  height: number,
  box: { left: number; top: number; width: number; height: number },
): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: '#000' } })
    .composite([
      {
        input: { create: { width: box.width, height: box.height, channels: 3, background: '#fff' } },
        left: box.left,
        top: box.top,
      },
    ])
    .png()
    .toBuffer();
}

export async function rawRgb(image: Buffer): Promise<{ data: Buffer; width: number; height: number }> {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** Peak signal-to-noise ratio (dB) of two equally sized 8-bit buffers. */
export function psnr(a: Uint8Array, b: Uint8Array): number {
  if (a.length !== b.length) throw new Error('different sizes');
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] - b[i]) ** 2;
  return 10 * Math.log10((255 * 255) / (sum / a.length));
}

/** Mean absolute difference per channel value (0..255) of two equally sized 8-bit buffers. */
export function meanAbsDiff(a: Uint8Array, b: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i] - b[i]);
  return sum / a.length;
}

/**
 * Bicubic upscaling of RGB pixels (Keys kernel, a = -0.5, pixel centres aligned, edges clamped),
 * the classic baseline for super resolution.
 */
export function bicubicUpscale(src: Uint8Array, width: number, height: number, factor: number): Uint8Array {
  const w2 = width * factor;
  const h2 = height * factor;
  const out = new Uint8ClampedArray(w2 * h2 * 3);
  const kernel = (t: number) => {
    const x = Math.abs(t);
    if (x <= 1) return 1.5 * x ** 3 - 2.5 * x ** 2 + 1;
    if (x < 2) return -0.5 * x ** 3 + 2.5 * x ** 2 - 4 * x + 2;
    return 0;
  };
  const clampX = (x: number) => Math.min(width - 1, Math.max(0, x));
  const clampY = (y: number) => Math.min(height - 1, Math.max(0, y));
  for (let y = 0; y < h2; y++) {
    const sy = (y + 0.5) / factor - 0.5;
    const iy = Math.floor(sy);
    const wy = [-1, 0, 1, 2].map((k) => kernel(sy - (iy + k)));
    for (let x = 0; x < w2; x++) {
      const sx = (x + 0.5) / factor - 0.5;
      const ix = Math.floor(sx);
      const wx = [-1, 0, 1, 2].map((k) => kernel(sx - (ix + k)));
      for (let c = 0; c < 3; c++) {
        let v = 0;
        for (let j = 0; j < 4; j++) {
          const row = clampY(iy + j - 1) * width;
          for (let i = 0; i < 4; i++) v += wy[j] * wx[i] * src[(row + clampX(ix + i - 1)) * 3 + c];
        }
        out[(y * w2 + x) * 3 + c] = v;
      }
    }
  }
  return new Uint8Array(out.buffer);
}
