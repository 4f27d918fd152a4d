import sharp from 'sharp';
import { cloneImage } from './clone';
import { EngineInputError } from './engine.port';
import { fixture, meanAbsDiff, rawRgb } from './spec-helpers';

describe('cloneImage', () => {
  it('makes N slightly different copies, scaled down to 1024 px keeping proportions', async () => {
    const source = fixture('cgi-model-1.jpg'); // 1280x720
    const progress: number[] = [];
    const copies = await cloneImage(source, 3, { onProgress: (f) => progress.push(f) });

    expect(copies).toHaveLength(3);
    const reference = await rawRgb(await sharp(source).resize(1024, 576).png().toBuffer());
    const pixels = [];
    for (const copy of copies) {
      expect(copy).toMatchObject({ format: 'png', width: 1024, height: 576 });
      const meta = await sharp(copy.data).metadata();
      expect(meta).toMatchObject({ format: 'png', width: 1024, height: 576 });
      const raw = await rawRgb(copy.data);
      const diff = meanAbsDiff(raw.data, reference.data);
      expect(diff).toBeGreaterThan(0.5);
      expect(diff).toBeLessThan(8);
      pixels.push(raw.data);
    }
    for (let i = 0; i < pixels.length; i++) {
      for (let j = i + 1; j < pixels.length; j++) {
        const diff = meanAbsDiff(pixels[i], pixels[j]);
        expect(diff).toBeGreaterThan(0.5);
        expect(diff).toBeLessThan(8);
      }
    }
    expect(progress).toEqual([1 / 3, 2 / 3, 1]);
  });

  it('keeps small images at their size', async () => {
    const [copy] = await cloneImage(fixture('ai-face.jpg'), 1);
    expect(copy).toMatchObject({ width: 256, height: 256 });
  });

  it('rejects bytes that are not an image and a bad amount', async () => {
    await expect(cloneImage(Buffer.from('not an image'), 2)).rejects.toMatchObject({ code: 'bad_image' });
    await expect(cloneImage(fixture('ai-face.jpg'), 0)).rejects.toBeInstanceOf(EngineInputError);
  });
});
