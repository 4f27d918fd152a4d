import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { DEFAULT_SAFETY_POLICY, isSexual } from '@studio/contracts';
import { ageOfBins } from './face-analyzer';
import { LocalCpuEngine } from './local-engine';
import { FIXTURES, fixture, gradientImage } from './spec-helpers';

jest.setTimeout(300_000);

/** Random pixels (not a photograph of anything). */
const noise = (side = 256) =>
  sharp(randomBytes(side * side * 3), { raw: { width: side, height: side, channels: 3 } })
    .png()
    .toBuffer();

describe('the content check on neutral images (real nsfwjs MobileNetV2 and Human faceres, wasm)', () => {
  const engine = new LocalCpuEngine();
  afterAll(() => engine.close());

  it('classifies none of the project’s neutral images as sexual, and estimates an age for each face', async () => {
    // (The bikini photos cgi-model-3 and -22 score high on the 'sexy' class, which the policy does not count.)
    const images: [string, Buffer][] = [];
    for (const name of FIXTURES) {
      images.push([name, fixture(name)]);
      // The same picture re-encoded as a low-quality JPEG and a WebP.
      images.push([`${name} q40`, await sharp(fixture(name)).jpeg({ quality: 40 }).toBuffer()]);
      images.push([`${name} webp`, await sharp(fixture(name)).webp({ quality: 50 }).toBuffer()]);
    }
    images.push(['gradient', await gradientImage()]);
    images.push(['noise', await noise()]);
    const reports = await engine.inspectContent({ images: images.map(([, image]) => image) });
    const lines = reports.map(
      (report, i) =>
        `${images[i][0]}: ${JSON.stringify(report.scores)} faces ${report.faces.map((f) => f.age).join(',')} ` +
        `(${report.timings.classifyMs} + ${report.timings.facesMs} ms)`,
    );
    console.log(lines.join('\n'));
    for (const report of reports) {
      const total = Object.values(report.scores).reduce((a, b) => a + b, 0);
      expect(total).toBeGreaterThan(0.98);
      expect(isSexual(report, DEFAULT_SAFETY_POLICY)).toBe(false);
    }
    // Each photograph's face is found and given an age; the gradient and the noise have none.
    for (let i = 0; i < FIXTURES.length * 3; i += 3) {
      expect(reports[i].faces.length).toBeGreaterThanOrEqual(1);
      expect(reports[i].faces[0].age).toBeGreaterThan(0);
    }
    expect(reports.at(-2)!.faces).toEqual([]);
  });
});

describe("Human's reading of faceres' age bins", () => {
  it('takes the top bin, pulled towards its larger neighbour', () => {
    const bins = new Float32Array(100);
    bins[25] = 0.6;
    bins[26] = 0.3;
    bins[24] = 0.1;
    expect(ageOfBins(bins)).toBe(28); // 10 x 25 + 100 x 0.3 = 280 tenths
    bins[24] = 0.35;
    bins[26] = 0.05;
    expect(ageOfBins(bins)).toBe(21.5); // 250 - 35
  });
});
