import sharp from 'sharp';
import { bicubicUpscale, fixture, psnr, rawRgb } from './spec-helpers';
import { SuperResolver, tileGrid } from './super-resolution';
import { tf } from './tf-runtime';

jest.setTimeout(120_000);

describe('SuperResolver', () => {
  const warnings: string[] = [];
  const resolver = new SuperResolver({ logger: { log: () => undefined, warn: (m) => warnings.push(m) } });

  beforeAll(async () => {
    const started = Date.now();
    expect(await resolver.load()).toBe(true);
    console.log(`SR model load: ${Date.now() - started} ms (${tf.getBackend()})`);
  });

  afterAll(() => resolver.close());

  // Measured here: ESRGAN-slim beats sharp's own bicubic (and Lanczos) enlargement by 2.5–5 dB, but
  // only matches an exactly centred textbook bicubic (within ~1 dB, sometimes slightly below it):
  // part of sharp's deficit is a half-pixel offset in its enlargement. Both are asserted.
  it('beats a bicubic upscale (PSNR against the original)', async () => {
    const lines: string[] = [];
    for (const name of ['ai-face.jpg', 'ai-upper.jpg']) {
      const original = await rawRgb(fixture(name));
      const small = await sharp(fixture(name))
        .resize(original.width / 2, original.height / 2)
        .png()
        .toBuffer();
      const smallRaw = await rawRgb(small);
      const progress: number[] = [];
      const started = Date.now();
      const result = await resolver.upscale(small, 2, { onProgress: (f) => progress.push(f) });
      const ms = Date.now() - started;

      expect(result).toMatchObject({ format: 'png', width: original.width, height: original.height });
      const sr = psnr((await rawRgb(result.data)).data, original.data);
      const sharpBicubic = psnr(
        (
          await rawRgb(
            await sharp(small).resize(original.width, original.height, { kernel: 'cubic' }).toBuffer(),
          )
        ).data,
        original.data,
      );
      const exactBicubic = psnr(
        bicubicUpscale(smallRaw.data, smallRaw.width, smallRaw.height, 2),
        original.data,
      );
      lines.push(
        `${name} ${smallRaw.width}x${smallRaw.height} -> ${result.width}x${result.height} in ${ms} ms ` +
          `(${progress.length} progress reports): SR ${sr.toFixed(2)} dB, sharp bicubic ${sharpBicubic.toFixed(2)} dB, ` +
          `centred bicubic ${exactBicubic.toFixed(2)} dB`,
      );
      expect(sr).toBeGreaterThan(sharpBicubic + 1);
      expect(sr).toBeGreaterThan(exactBicubic - 1.5);
      expect(progress.length).toBeGreaterThan(1);
      expect(progress.at(-1)).toBe(1);
    }
    console.log(lines.join('\n'));
    expect(warnings).toEqual([]);
  });

  it('gives exactly 2x for sizes that are not a multiple of the tile, without leaking tensors', async () => {
    const input = await sharp(fixture('cgi-model-3.jpg')).resize(203, 131, { fit: 'fill' }).png().toBuffer();
    await resolver.upscale(input); // the first run may allocate backend state
    const tensors = tf.memory().numTensors;
    const result = await resolver.upscale(input);
    expect(result).toMatchObject({ width: 406, height: 262 });
    expect(await sharp(result.data).metadata()).toMatchObject({ width: 406, height: 262 });
    expect(tf.memory().numTensors).toBe(tensors);
  });

  it('scales inputs over 1024 px down first', async () => {
    const input = await sharp({ create: { width: 1100, height: 40, channels: 3, background: '#808080' } })
      .png()
      .toBuffer();
    const result = await resolver.upscale(input);
    expect(result).toMatchObject({ width: 2048, height: 74 });
  });

  it('tiles cover the image exactly', () => {
    const tiles = tileGrid(250, 130, 112);
    expect(tiles).toHaveLength(6);
    expect(tiles.reduce((area, t) => area + t.w * t.h, 0)).toBe(250 * 130);
    expect(Math.max(...tiles.map((t) => Math.max(t.w, t.h)))).toBeLessThanOrEqual(112);
  });

  it('falls back to a Lanczos resize when the model cannot load', async () => {
    const logged: string[] = [];
    const broken = new SuperResolver({
      modelPath: '/nonexistent/model.json',
      logger: { log: () => undefined, warn: (m) => logged.push(m) },
    });
    const result = await broken.upscale(await sharp(fixture('ai-face.jpg')).resize(64, 48).png().toBuffer());
    expect(result).toMatchObject({ format: 'png', width: 128, height: 96 });
    expect(logged.join()).toMatch(/Lanczos/);
  });
});
