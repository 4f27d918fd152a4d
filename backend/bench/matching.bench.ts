/**
 * Copy finding (issue 38): how many stored outputs are found again after common edits, how many
 * unrelated pictures are wrongly matched, and look-up time at 1,000,000 stored hashes beside a plain
 * scan in the same run. Uses the same code as the app (fingerprintImage, bandsOf, the 10-bit rule);
 * no services. Outputs: the 5 test faces of libs/inference/fixtures at 4 framings each and 180
 * seeded synthetic pictures (shapes on gradients), 200 in all.
 * Unrelated: 1,000 other pictures (seeded shapes, noise, test patterns) and their JPEG re-encodes.
 * Videos: 10 seeded videos (4 synthetic pictures each, slowly panned, H.264 at 1.5 Mbit/s), each
 * re-encoded with H.264 at 250 kbit/s and matched frame by frame (sampleVideoFrames,
 * videoFramesMatch, as the app); the re-encodes are also checked against the 9 other videos.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import {
  CAPPED_FFMPEG,
  CAPPED_FFPROBE,
  fingerprintImage,
  hammingHex,
  PHASH_MATCH_BITS,
  sampleVideoFrames,
  videoFramesMatch,
} from '@studio/inference';
import { bandsOf } from '../src/modules/takedown/copy-finder';

const FIXTURES = path.resolve(__dirname, '..', '..', 'libs', 'inference', 'fixtures');
const LIMIT = { maxPixels: 4096 * 4096 };

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function shapes(seed: number, w = 768, h = 512): Promise<Buffer> {
  const r = rng(seed);
  const colour = () => `rgb(${Math.floor(r() * 256)},${Math.floor(r() * 256)},${Math.floor(r() * 256)})`;
  let body = `<defs><linearGradient id="g" x1="0" y1="0" x2="${r()}" y2="1"><stop offset="0" stop-color="${colour()}"/><stop offset="1" stop-color="${colour()}"/></linearGradient></defs><rect width="${w}" height="${h}" fill="url(#g)"/>`;
  for (let i = 0; i < 12; i++) {
    const x = r() * w;
    const y = r() * h;
    body +=
      r() < 0.5
        ? `<circle cx="${x}" cy="${y}" r="${20 + r() * 120}" fill="${colour()}"/>`
        : `<rect x="${x}" y="${y}" width="${30 + r() * 250}" height="${30 + r() * 200}" fill="${colour()}" transform="rotate(${r() * 90} ${x} ${y})"/>`;
  }
  return sharp(
    Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">${body}</svg>`),
  )
    .png()
    .toBuffer();
}

function noise(seed: number, w = 512, h = 512): Promise<Buffer> {
  const r = rng(seed);
  const data = Buffer.alloc(w * h * 3);
  for (let i = 0; i < data.length; i++) data[i] = Math.floor(r() * 256);
  return sharp(data, { raw: { width: w, height: h, channels: 3 } })
    .png()
    .toBuffer();
}

function pattern(seed: number, w = 640, h = 480): Promise<Buffer> {
  const r = rng(seed);
  const kind = seed % 3;
  const n = 2 + Math.floor(r() * 14);
  let body = '';
  for (let i = 0; i < n; i++) {
    const c = `hsl(${Math.floor(r() * 360)},${40 + Math.floor(r() * 60)}%,50%)`;
    if (kind === 0) body += `<rect x="${(i * w) / n}" y="0" width="${w / n}" height="${h}" fill="${c}"/>`;
    else if (kind === 1)
      body += `<rect x="0" y="${(i * h) / n}" width="${w}" height="${h / n}" fill="${c}"/>`;
    else
      for (let j = 0; j < n; j++)
        if ((i + j) % 2 === 0)
          body += `<rect x="${(i * w) / n}" y="${(j * h) / n}" width="${w / n}" height="${h / n}" fill="${c}"/>`;
  }
  return sharp(
    Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="${w}" height="${h}" fill="#fff"/>${body}</svg>`,
    ),
  )
    .png()
    .toBuffer();
}

async function outputs(): Promise<Buffer[]> {
  const made: Buffer[] = [];
  for (const name of [
    'ai-face.jpg',
    'ai-upper.jpg',
    'cgi-model-1.jpg',
    'cgi-model-22.jpg',
    'cgi-model-3.jpg',
  ]) {
    const face = readFileSync(path.join(FIXTURES, name));
    const { width = 0, height = 0 } = await sharp(face).metadata();
    // four framings of each face: whole, left and right halves-plus, and a centre square
    const boxes = [
      { left: 0, top: 0, width, height },
      { left: 0, top: 0, width: Math.round(width * 0.6), height },
      { left: Math.round(width * 0.4), top: 0, width: width - Math.round(width * 0.4), height },
      {
        left: Math.round(width * 0.2),
        top: Math.round(height * 0.2),
        width: Math.round(width * 0.6),
        height: Math.round(height * 0.6),
      },
    ];
    for (const box of boxes)
      made.push(await sharp(face).extract(box).resize(768, 768, { fit: 'inside' }).png().toBuffer());
  }
  for (let i = 0; made.length < 200; i++) made.push(await shapes(1000 + i));
  return made;
}

const EDITS: Record<string, (png: Buffer) => Promise<Buffer>> = {
  'JPEG 75': (png) => sharp(png).jpeg({ quality: 75 }).toBuffer(),
  '50% downscale': async (png) => {
    const { width = 0 } = await sharp(png).metadata();
    return sharp(png)
      .resize(Math.round(width / 2))
      .png()
      .toBuffer();
  },
  '10% crop (5% each side)': async (png) => {
    const { width = 0, height = 0 } = await sharp(png).metadata();
    const left = Math.round(width * 0.05);
    const top = Math.round(height * 0.05);
    return sharp(png)
      .extract({ left, top, width: width - 2 * left, height: height - 2 * top })
      .png()
      .toBuffer();
  },
  '10% crop (one side)': async (png) => {
    const { width = 0, height = 0 } = await sharp(png).metadata();
    return sharp(png)
      .extract({ left: 0, top: 0, width: Math.round(width * 0.9), height })
      .png()
      .toBuffer();
  },
  'PNG to JPEG (q90)': (png) => sharp(png).jpeg({ quality: 90 }).toBuffer(),
};

interface Stored {
  variants: string[];
  bands: string[];
}

const closest = (query: string, variants: string[]) => Math.min(...variants.map((v) => hammingHex(query, v)));

/** What the app's look-up returns: candidates sharing a band, then the 10-bit rule. */
function indexed(query: string, stored: Stored[], index: Map<string, number[]>): number[] {
  const candidates = new Set<number>();
  for (const band of bandsOf([query])) for (const i of index.get(band) ?? []) candidates.add(i);
  return [...candidates].filter((i) => closest(query, stored[i].variants) <= PHASH_MATCH_BITS);
}

async function main(): Promise<void> {
  const made = await outputs();
  const stored: Stored[] = [];
  const index = new Map<string, number[]>();
  let t0 = performance.now();
  for (const [i, png] of made.entries()) {
    const print = await fingerprintImage(png, LIMIT);
    const bands = bandsOf(print.variants);
    stored.push({ variants: print.variants, bands });
    for (const band of bands) index.set(band, [...(index.get(band) ?? []), i]);
  }
  const hashMs = (performance.now() - t0) / made.length;
  console.log(`matching: ${made.length} outputs hashed (whole + 9 crops), ${hashMs.toFixed(1)} ms each`);

  console.log('\nfound again after an edit (goal >= 95%): by the band index | by a full scan');
  for (const [name, edit] of Object.entries(EDITS)) {
    let byIndex = 0;
    let byScan = 0;
    for (const [i, png] of made.entries()) {
      const query = (await fingerprintImage(await edit(png), { ...LIMIT, crops: false })).phash;
      if (indexed(query, stored, index).includes(i)) byIndex++;
      if (closest(query, stored[i].variants) <= PHASH_MATCH_BITS) byScan++;
    }
    const pct = (n: number) => `${((100 * n) / made.length).toFixed(1)}%`;
    console.log(`  ${name.padEnd(26)} ${pct(byIndex).padStart(7)} | ${pct(byScan).padStart(7)}`);
  }

  const unrelated: Buffer[] = [];
  for (let i = 0; i < 200; i++) unrelated.push(await shapes(50_000 + i));
  for (let i = 0; i < 100; i++) unrelated.push(await noise(70_000 + i));
  for (let i = 0; i < 200; i++) unrelated.push(await pattern(90_000 + i));
  const originals = unrelated.length;
  for (let i = 0; i < originals; i++)
    unrelated.push(await sharp(unrelated[i]).jpeg({ quality: 70 }).toBuffer());
  let falseMatches = 0;
  let nearest = 64;
  for (const png of unrelated) {
    const query = (await fingerprintImage(png, { ...LIMIT, crops: false })).phash;
    if (indexed(query, stored, index).length > 0) falseMatches++;
    for (const s of stored) nearest = Math.min(nearest, closest(query, s.variants));
  }
  console.log(
    `\nfalse matches (goal none): ${falseMatches} of ${unrelated.length} unrelated pictures (shapes, noise, test patterns and their JPEG 70 re-encodes); nearest distance ${nearest} bits (match rule <= ${PHASH_MATCH_BITS})`,
  );

  await videos();

  // Look-up at 1,000,000 stored outputs (10 hashes each would be 10M: here one hash per output, the
  // whole-picture one, as a lower bound of the index's size), in memory, beside a plain scan.
  const r = rng(7);
  const hex = () =>
    Math.floor(r() * 2 ** 32)
      .toString(16)
      .padStart(8, '0');
  const million: string[] = [];
  const bigIndex = new Map<string, number[]>();
  for (let i = 0; i < 1_000_000; i++) {
    const h = hex() + hex();
    million.push(h);
    for (const band of bandsOf([h])) {
      const list = bigIndex.get(band);
      if (list) list.push(i);
      else bigIndex.set(band, [i]);
    }
  }
  const queries = Array.from({ length: 20 }, (_, i) => million[i * 50_000]);
  t0 = performance.now();
  for (const q of queries) {
    const c = new Set<number>();
    for (const band of bandsOf([q])) for (const i of bigIndex.get(band) ?? []) c.add(i);
    [...c].filter((i) => hammingHex(q, million[i]) <= PHASH_MATCH_BITS);
  }
  const indexMs = (performance.now() - t0) / queries.length;
  t0 = performance.now();
  for (const q of queries.slice(0, 5)) million.filter((h) => hammingHex(q, h) <= PHASH_MATCH_BITS);
  const scanMs = (performance.now() - t0) / 5;
  console.log(
    `\nlook-up among 1,000,000 stored hashes (in memory, goal < 100 ms): band index ${indexMs.toFixed(2)} ms, plain scan ${scanMs.toFixed(0)} ms`,
  );
}

/** A video's frame hashes as the app keeps them (CopyFinder.fingerprintVideo, without the pool). */
async function videoHashes(file: string): Promise<string[]> {
  const frames = await sampleVideoFrames(file, { ffmpeg: CAPPED_FFMPEG, ffprobe: CAPPED_FFPROBE });
  const hashes: string[] = [];
  for (const frame of frames) hashes.push((await fingerprintImage(frame, { ...LIMIT, crops: false })).phash);
  return [...new Set(hashes)];
}

async function videos(): Promise<void> {
  const run = promisify(execFile);
  const dir = mkdtempSync(path.join(tmpdir(), 'matching-video-'));
  try {
    const originals: string[][] = [];
    const copies: string[][] = [];
    let hashMs = 0;
    for (let v = 0; v < 10; v++) {
      const inputs: string[] = [];
      for (let k = 0; k < 4; k++) {
        const file = path.join(dir, `v${v}-${k}.png`);
        writeFileSync(file, await shapes(200_000 + v * 10 + k, 960, 640));
        inputs.push('-loop', '1', '-t', '1.5', '-i', file);
      }
      // Each picture panned across for 1.5 s (a moving camera), the four one after another.
      const pans = [0, 1, 2, 3]
        .map((k) => `[${k}]crop=640:360:x='t*200':y='t*120',setsar=1,fps=25[p${k}]`)
        .join(';');
      const made = path.join(dir, `v${v}.mp4`);
      await run(CAPPED_FFMPEG, [
        ...['-v', 'error', '-y', ...inputs],
        ...['-filter_complex', `${pans};[p0][p1][p2][p3]concat=n=4:v=1[out]`, '-map', '[out]'],
        ...['-c:v', 'libx264', '-b:v', '1500k', '-pix_fmt', 'yuv420p', made],
      ]);
      const copy = path.join(dir, `v${v}-copy.mp4`);
      await run(CAPPED_FFMPEG, [
        ...['-v', 'error', '-y', '-i', made],
        ...['-c:v', 'libx264', '-b:v', '250k', '-pix_fmt', 'yuv420p', copy],
      ]);
      const t0 = performance.now();
      originals.push(await videoHashes(made));
      hashMs += performance.now() - t0;
      copies.push(await videoHashes(copy));
    }
    let found = 0;
    let falseMatches = 0;
    const distances: number[] = [];
    for (let v = 0; v < 10; v++) {
      const own = videoFramesMatch(copies[v], originals[v]);
      distances.push(own.distance);
      if (own.match) found++;
      for (let w = 0; w < 10; w++)
        if (w !== v && videoFramesMatch(copies[v], originals[w]).match) falseMatches++;
    }
    console.log(
      `
videos (${originals[0].length} sampled frames each, hashed in ${(hashMs / 10).toFixed(0)} ms a video): H.264 re-encode at 250 kbit/s found ${found} of 10 (${found * 10}%; median frame distance ${distances.join('/')} bits); false matches ${falseMatches} of 90 (each re-encode against the 9 other videos)`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
