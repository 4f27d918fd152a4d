/**
 * @jest-environment ./libs/inference/src/sr-onnx.jest-env.cjs
 */
import sharp from 'sharp';
import { resizeFloat } from './resample';
import { fixture, psnr, rawRgb } from './spec-helpers';
import { SuperResolver, tileGrid } from './super-resolution';
import { tf } from './tf-runtime';

jest.setTimeout(120_000);

const toBytes = (pixels: Float32Array) =>
  Uint8Array.from(pixels, (v) => Math.min(255, Math.max(0, Math.round(v))));

describe('SuperResolver', () => {
  const warnings: string[] = [];
  const resolver = new SuperResolver({ logger: { log: () => undefined, warn: (m) => warnings.push(m) } });

  beforeAll(async () => {
    const started = Date.now();
    expect(await resolver.loadedRuntime()).toBe('onnx');
    console.log(`SR model load: ${Date.now() - started} ms (onnx)`);
  });

  afterAll(() => resolver.close());

  // The SR benchmark's degradation (antialiased bicubic scaling down) and a centred bicubic to beat:
  // sharp's own enlargement is off by half a pixel, so beating it would prove little.
  it.each([2, 4] as const)(
    'beats a centred bicubic upscale at %ix (PSNR against the original), with progress',
    async (scale) => {
      const original = await sharp(fixture('cgi-model-3.jpg')).metadata();
      const crop = { width: Math.floor(original.width / 8) * 4, height: Math.floor(original.height / 8) * 4 };
      const reference = await rawRgb(
        await sharp(fixture('cgi-model-3.jpg'))
          .extract({ left: 0, top: 0, ...crop })
          .png()
          .toBuffer(),
      );
      const [w, h] = [crop.width / scale, crop.height / scale];
      const smallPixels = toBytes(
        resizeFloat(Float32Array.from(reference.data), crop.width, crop.height, 3, w, h),
      );
      const small = await sharp(smallPixels, { raw: { width: w, height: h, channels: 3 } })
        .png()
        .toBuffer();
      const progress: number[] = [];
      const result = await resolver.upscale(small, scale, { onProgress: (f) => progress.push(f) });
      expect(result).toMatchObject({ format: 'png', width: crop.width, height: crop.height });
      expect(await sharp(result.data).metadata()).toMatchObject({ width: crop.width, height: crop.height });
      const sr = psnr((await rawRgb(result.data)).data, reference.data);
      const bicubic = psnr(
        toBytes(resizeFloat(Float32Array.from(smallPixels), w, h, 3, crop.width, crop.height)),
        reference.data,
      );
      console.log(
        `cgi-model-3 ${w}x${h} x${scale}: SR ${sr.toFixed(2)} dB, bicubic ${bicubic.toFixed(2)} dB`,
      );
      // the goal is +0.3 dB at 2x; at 4x a smaller lead (0.29 dB measured on this crop)
      expect(sr).toBeGreaterThan(bicubic + (scale === 2 ? 0.3 : 0.1));
      expect(progress.length).toBeGreaterThan(1);
      expect(progress).toEqual([...progress].sort((a, b) => a - b));
      expect(progress.at(-1)).toBe(1);
      expect(warnings).toEqual([]);
    },
  );

  it('gives exactly 2x for sizes that are not a multiple of the tile, without leaking tensors', async () => {
    const input = await sharp(fixture('cgi-model-3.jpg')).resize(203, 131, { fit: 'fill' }).png().toBuffer();
    const onnx = await resolver.upscale(input);
    expect(onnx).toMatchObject({ width: 406, height: 262 });
    expect(await sharp(onnx.data).metadata()).toMatchObject({ width: 406, height: 262 });
    const wasm = new SuperResolver({ runtime: 'tfjs-wasm' });
    try {
      await wasm.upscale(input); // the first run may allocate backend state
      const tensors = tf.memory().numTensors;
      const result = await wasm.upscale(input);
      expect(result).toMatchObject({ width: 406, height: 262 });
      expect(await sharp(result.data).metadata()).toMatchObject({ width: 406, height: 262 });
      expect(tf.memory().numTensors).toBe(tensors);
    } finally {
      await wasm.close();
    }
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
      modelDir: '/nonexistent',
      logger: { log: () => undefined, warn: (m) => logged.push(m) },
    });
    const result = await broken.upscale(await sharp(fixture('ai-face.jpg')).resize(64, 48).png().toBuffer());
    expect(result).toMatchObject({ format: 'png', width: 128, height: 96 });
    expect(logged.join()).toMatch(/Lanczos/);
  });
});
