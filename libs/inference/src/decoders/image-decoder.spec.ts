import sharp from 'sharp';
import { DecodeBudgetError } from '../decoders';
import { ImageDecoder, UnreadableImageError } from './image-decoder';

describe('ImageDecoder (uploads decoded in a child process under a memory ceiling)', () => {
  let decoder: ImageDecoder;
  let photo: Buffer;
  beforeAll(async () => {
    photo = await sharp({ create: { width: 1200, height: 800, channels: 3, background: '#4a7' } })
      .jpeg()
      .toBuffer();
  });
  beforeEach(() => (decoder = new ImageDecoder({ memoryMb: 2048 })));
  afterEach(() => decoder.close());

  it('fits an image within a side, or fills an exact size, as PNG', async () => {
    const fitted = await decoder.decode({ input: photo, maxPixels: 40e6, maxSide: 600 });
    expect([fitted.width, fitted.height]).toEqual([600, 400]);
    expect((await sharp(fitted.data).metadata()).format).toBe('png');
    const filled = await decoder.decode({ input: photo, maxPixels: 40e6, fill: { width: 50, height: 70 } });
    expect([filled.width, filled.height]).toEqual([50, 70]);
  });

  it('refuses what is not an image, or more pixels than allowed, and keeps serving', async () => {
    await expect(
      decoder.decode({ input: Buffer.from('not an image'), maxPixels: 40e6, maxSide: 10 }),
    ).rejects.toThrow(UnreadableImageError);
    await expect(decoder.decode({ input: photo, maxPixels: 1000, maxSide: 10 })).rejects.toThrow(
      UnreadableImageError,
    );
    expect((await decoder.decode({ input: photo, maxPixels: 40e6, maxSide: 12 })).width).toBe(12);
  });

  it('fails the decodes a dying process held as over budget, and decodes the next in a new one', async () => {
    await decoder.decode({ input: photo, maxPixels: 40e6, maxSide: 10 });
    const child = (decoder as unknown as { child: { pid: number; kill(signal: string): void } }).child;
    const held = decoder.decode({ input: photo, maxPixels: 40e6, maxSide: 1000 });
    child.kill('SIGKILL');
    await expect(held).rejects.toThrow(DecodeBudgetError);
    expect((await decoder.decode({ input: photo, maxPixels: 40e6, maxSide: 20 })).width).toBe(20);
    expect((decoder as unknown as { child: { pid: number } }).child.pid).not.toBe(child.pid);
  });

  it('runs under its memory ceiling: too small a ceiling for Node itself fails the decode as over budget', async () => {
    const starved = new ImageDecoder({ memoryMb: 300 });
    try {
      await expect(starved.decode({ input: photo, maxPixels: 40e6, maxSide: 10 })).rejects.toThrow(
        DecodeBudgetError,
      );
    } finally {
      starved.close();
    }
  });
});
