import sharp from 'sharp';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The sample images and videos libs/inference keeps for its own tests. */
export const FIXTURES = join(__dirname, '../../libs/inference/fixtures');

/** The bytes of one of those samples. */
export const fixture = (name: string): Buffer => readFileSync(join(FIXTURES, name));

/** A 24 px black Magic Brush mask with a white 8 px square in its middle (PNG). */
export async function squareMask(): Promise<Buffer> {
  const square = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#fff' } })
    .png()
    .toBuffer();
  return sharp({ create: { width: 24, height: 24, channels: 3, background: '#000' } })
    .composite([{ input: square, left: 8, top: 8 }])
    .png()
    .toBuffer();
}
