import sharp from 'sharp';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fingerprintImage, hammingHex, PHASH_MATCH_BITS, videoFramesMatch } from './fingerprint';
import { DecodeBudgetError } from './decoders';

const face = (name: string) => readFileSync(join(__dirname, '..', 'fixtures', name));
const closest = (query: string, variants: string[]) => Math.min(...variants.map((v) => hammingHex(query, v)));
const LIMIT = { maxPixels: 4096 * 4096 };

describe('fingerprints (pHash of the picture and its crops)', () => {
  it('finds a JPEG 75 half-size copy and 10% crops (a side, a corner, the middle), not another face', async () => {
    const original = await sharp(face('cgi-model-1.jpg')).resize(768).png().toBuffer();
    const { width, height } = await sharp(original).metadata();
    const w = width!;
    const h = height!;
    const stored = await fingerprintImage(original, LIMIT);
    expect(stored.variants).toHaveLength(10);
    const copies = {
      jpeg75Half: sharp(original)
        .resize(Math.round(w / 2))
        .jpeg({ quality: 75 }),
      cropLeft: sharp(original).extract({
        left: Math.round(w * 0.1),
        top: 0,
        width: w - Math.round(w * 0.1),
        height: h,
      }),
      cropCorner: sharp(original).extract({
        left: Math.round(w * 0.1),
        top: Math.round(h * 0.1),
        width: w - Math.round(w * 0.1),
        height: h - Math.round(h * 0.1),
      }),
      cropMiddle: sharp(original).extract({
        left: Math.round(w * 0.05),
        top: Math.round(h * 0.05),
        width: Math.round(w * 0.9),
        height: Math.round(h * 0.9),
      }),
    };
    for (const [name, copy] of Object.entries(copies)) {
      const query = await fingerprintImage(await copy.jpeg({ quality: 80 }).toBuffer(), {
        ...LIMIT,
        crops: false,
      });
      expect([name, closest(query.phash, stored.variants) <= PHASH_MATCH_BITS]).toEqual([name, true]);
    }
    const other = await fingerprintImage(
      await sharp(face('cgi-model-3.jpg')).resize(768).png().toBuffer(),
      LIMIT,
    );
    expect(closest(other.phash, stored.variants)).toBeGreaterThan(PHASH_MATCH_BITS);
  });

  it('refuses a picture over the decode budget from its header, before decoding', async () => {
    const big = await sharp({ create: { width: 300, height: 300, channels: 3, background: '#888' } })
      .png()
      .toBuffer();
    await expect(fingerprintImage(big, { maxPixels: 200 * 200 })).rejects.toBeInstanceOf(DecodeBudgetError);
  });
});

describe('video frames (videoFramesMatch)', () => {
  const a = '0000000000000000';
  const near = '0000000000000007'; // 3 bits from a
  const far = 'ffffffffffff0000'; // 48 bits from a
  it('matches when at least half the searched frames are near a stored frame, with the median distance', () => {
    expect(videoFramesMatch([near, near, far, far], [a])).toEqual({ match: true, distance: 3 });
    expect(videoFramesMatch([near, far, far, far], [a])).toMatchObject({ match: false });
  });
  it('never matches with no frames on either side (a video of flat frames only)', () => {
    expect(videoFramesMatch([], [a]).match).toBe(false);
    expect(videoFramesMatch([a], []).match).toBe(false);
  });
});
