import sharp from 'sharp';
import { JobMessages } from '@studio/contracts';
import { EngineInputError } from './engine.port';
import { decodeRgb } from './image-io';
import { decodeMask, inpaintImage } from './inpaint';
import { loadOpenCv } from './opencv';
import { fixture, meanAbsDiff } from './spec-helpers';

jest.setTimeout(60_000);

/** A white shape (SVG) on a transparent canvas, or on an opaque black one. */
function maskImage(width: number, height: number, shape: string, background?: 'black'): Promise<Buffer> {
  const fill = background ? `<rect width="100%" height="100%" fill="${background}"/>` : '';
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${fill}${shape}</svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

/** A smooth gradient, and the same with a dark disc on it (the "object" to remove). */
function gradientWithDisc(width: number, height: number, cx: number, cy: number, r: number) {
  const clean = Buffer.alloc(width * height * 3);
  const withDisc = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 3;
      clean[o] = 60 + Math.round((150 * x) / width);
      clean[o + 1] = 90 + Math.round((120 * y) / height);
      clean[o + 2] = 170;
      const inside = (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
      for (let c = 0; c < 3; c++) withDisc[o + c] = inside ? 20 : clean[o + c];
    }
  }
  return { clean, withDisc };
}

/** Per-pixel comparison of two RGB buffers through a binary mask. */
function compareThroughMask(a: Uint8Array, b: Uint8Array, mask: Uint8Array) {
  let outsideDifferent = 0;
  const insideA: number[] = [];
  const insideB: number[] = [];
  for (let i = 0; i < mask.length; i++) {
    const o = i * 3;
    if (mask[i]) {
      insideA.push(a[o], a[o + 1], a[o + 2]);
      insideB.push(b[o], b[o + 1], b[o + 2]);
    } else if (a[o] !== b[o] || a[o + 1] !== b[o + 1] || a[o + 2] !== b[o + 2]) {
      outsideDifferent++;
    }
  }
  return { outsideDifferent, insideA: Uint8Array.from(insideA), insideB: Uint8Array.from(insideB) };
}

async function rgbOf(png: Buffer): Promise<Uint8Array> {
  return new Uint8Array(await sharp(png).removeAlpha().raw().toBuffer());
}

const mean = (values: Uint8Array) => values.reduce((sum, v) => sum + v, 0) / values.length;

/** Diagonal stripes with a finer vertical pattern: diffusion (Telea alone) averages them to grey. */
async function stripes(width: number, height: number) {
  const clean = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const v = ((x + y) >> 3) & 1 ? 200 : 60;
      clean.set([v, 255 - v, 120 + ((x >> 2) & 1) * 40], (y * width + x) * 3);
    }
  }
  const image = await sharp(clean, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
  return { clean, image };
}

describe('inpaintImage', () => {
  beforeAll(async () => {
    const started = Date.now();
    await loadOpenCv();
    console.log(`OpenCV.js loaded in ${Date.now() - started} ms`);
  });

  it('repaints a removed object from its surroundings and leaves every other pixel alone', async () => {
    const [width, height] = [1024, 1024];
    const { clean, withDisc } = gradientWithDisc(width, height, 500, 380, 120);
    const image = await sharp(withDisc, { raw: { width, height, channels: 3 } })
      .png()
      .toBuffer();
    // A brush stroke slightly larger than the object, white on a transparent canvas.
    const mask = await maskImage(width, height, '<circle cx="500" cy="380" r="130" fill="white"/>');
    const progress: number[] = [];
    const started = Date.now();
    const result = await inpaintImage({ image, mask }, { onProgress: (f) => progress.push(f) });
    const ms = Date.now() - started;
    console.log(`inpaint ${width}x${height}, mask r=130 px: ${ms} ms`);

    expect(result).toMatchObject({ format: 'png', width, height });
    expect(await sharp(result.data).metadata()).toMatchObject({ format: 'png', width, height });
    expect(progress[0]).toBe(0);
    expect(progress.at(-1)).toBe(1);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));

    const binary = await decodeMask(mask, width, height);
    expect(binary.count).toBeGreaterThan(Math.PI * 129 ** 2);
    expect(binary.count).toBeLessThan(Math.PI * 131 ** 2);
    const out = await rgbOf(result.data);
    const { outsideDifferent, insideA, insideB } = compareThroughMask(out, withDisc, binary.data);
    expect(outsideDifferent).toBe(0);
    // Inside: the dark disc is gone and the gradient is continued.
    const cleanInside = compareThroughMask(out, clean, binary.data);
    expect(meanAbsDiff(insideA, insideB)).toBeGreaterThan(50);
    expect(meanAbsDiff(cleanInside.insideA, cleanInside.insideB)).toBeLessThan(8);
  });

  it('continues a texture into the hole instead of smearing it', async () => {
    const [width, height] = [192, 192];
    const { clean, image } = await stripes(width, height);
    const mask = await maskImage(width, height, '<rect x="72" y="72" width="48" height="48" fill="white"/>');
    const result = await inpaintImage({ image, mask });
    const binary = await decodeMask(mask, width, height);
    const inside = compareThroughMask(await rgbOf(result.data), clean, binary.data);
    const error = meanAbsDiff(inside.insideA, inside.insideB);
    console.log(`stripes: mean error inside the hole ${error.toFixed(1)} (Telea alone: about 54)`);
    expect(error).toBeLessThan(10);
  });

  it('continues a texture into a hole spanning most of the picture', async () => {
    // Halving such a hole down to "a few patches across" would leave no whole known patch at the
    // coarsest level: the pyramid stops above it instead of giving the fill up for Telea's smear.
    const [width, height] = [192, 192];
    const { clean, image } = await stripes(width, height);
    const mask = await maskImage(
      width,
      height,
      '<rect x="21" y="21" width="150" height="150" fill="white"/>',
    );
    const progress: number[] = [];
    const result = await inpaintImage({ image, mask }, { onProgress: (f) => progress.push(f) });
    // progress per EM round by its pixels, not per pyramid level (the finest takes most of the time)
    const steps = progress.slice(1).map((f, i) => f - progress[i]);
    expect(Math.max(...steps)).toBeLessThan(0.2);
    const binary = await decodeMask(mask, width, height);
    const inside = compareThroughMask(await rgbOf(result.data), clean, binary.data);
    const error = meanAbsDiff(inside.insideA, inside.insideB);
    console.log(`stripes, 150 px hole in 192: mean error inside the hole ${error.toFixed(1)}`);
    // Telea's smear alone measured 53.5 here; the continued stripes 35.8 (their phase drifts mid-hole)
    expect(error).toBeLessThan(45);
  });

  it('takes a mask at the original size of a photo scaled down to 1024 px', async () => {
    const image = fixture('cgi-model-22.jpg'); // 905x1280 → 724x1024
    const mask = await maskImage(
      905,
      1280,
      '<rect x="600" y="700" width="200" height="160" fill="white"/>',
      'black',
    );
    const result = await inpaintImage({ image, mask });
    expect(result).toMatchObject({ format: 'png', width: 724, height: 1024 });

    const scaled = await decodeRgb(image);
    const binary = await decodeMask(mask, 724, 1024, { width: 905, height: 1280 });
    const expectedArea = 200 * 160 * (724 / 905) ** 2;
    expect(Math.abs(binary.count - expectedArea) / expectedArea).toBeLessThan(0.03);
    const out = await rgbOf(result.data);
    const { outsideDifferent, insideA, insideB } = compareThroughMask(out, scaled.data, binary.data);
    expect(outsideDifferent).toBe(0);
    expect(meanAbsDiff(insideA, insideB)).toBeGreaterThan(0);

    // Plausible: the repainted area has about the colour of a ring around it.
    const ring = new Uint8Array(724 * 1024);
    for (let y = 540; y < 708; y++) for (let x = 460; x < 660; x++) ring[y * 724 + x] = 255;
    for (let i = 0; i < ring.length; i++) if (binary.data[i]) ring[i] = 0;
    const around = compareThroughMask(scaled.data, scaled.data, ring).insideA;
    console.log(
      `photo inpaint: inside mean ${mean(insideA).toFixed(1)}, ring mean ${mean(around).toFixed(1)}`,
    );
    expect(Math.abs(mean(insideA) - mean(around))).toBeLessThan(20);
  });

  it('refuses a mask of other proportions, an empty mask and unreadable bytes', async () => {
    const image = fixture('ai-face.jpg'); // 256x256
    const wide = await maskImage(300, 200, '<rect x="10" y="10" width="50" height="50" fill="white"/>');
    await expect(inpaintImage({ image, mask: wide })).rejects.toEqual(
      new EngineInputError('bad_request', JobMessages.maskSize),
    );
    // Scaled by an odd factor is fine (rounding to whole pixels).
    const scaledMask = await maskImage(171, 171, '<rect x="50" y="50" width="40" height="40" fill="white"/>');
    await expect(inpaintImage({ image, mask: scaledMask })).resolves.toMatchObject({
      width: 256,
      height: 256,
    });

    const empty = await maskImage(256, 256, '', 'black');
    await expect(inpaintImage({ image, mask: empty })).rejects.toMatchObject({
      code: 'bad_request',
      message: JobMessages.maskRequired,
    });
    // Dark strokes and transparent white are not mask.
    const notMask = await maskImage(
      256,
      256,
      '<rect width="100" height="100" fill="#404040"/><rect y="120" width="100" height="100" fill="white" fill-opacity="0"/>',
    );
    await expect(decodeMask(notMask, 256, 256)).resolves.toMatchObject({ count: 0 });
    await expect(inpaintImage({ image, mask: Buffer.from('not an image') })).rejects.toMatchObject({
      code: 'bad_image',
      message: JobMessages.badImage,
    });
    await expect(inpaintImage({ image: Buffer.from('nope'), mask: empty })).rejects.toMatchObject({
      code: 'bad_image',
    });
  });
});
