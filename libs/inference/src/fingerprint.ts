import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import sharp from 'sharp';
import phash from 'sharp-phash';
import { DecodeBudgetError } from './decoders';

/**
 * Fingerprints that find copies of an output: the exact SHA-256 of the stored bytes, and 64-bit
 * perceptual hashes (pHash: DCT of a 32x32 grey thumbnail, from the maintained `sharp-phash`) of the
 * whole picture and of nine crops of it (a tenth off the middle, each side, each corner), so a copy that was re-encoded, resized or cut by up to
 * about a tenth on a side still lands within a few bits of one of them.
 */
export interface ImageFingerprint {
  sha256: string;
  /** pHash of the whole picture, 16 hex digits. */
  phash: string;
  /** pHashes of the whole picture and of its crops (the first is `phash`). */
  variants: string[];
}

/** Two hashes closer than this (bits of 64) are the same picture. */
export const PHASH_MATCH_BITS = 10;

/** The crops whose hashes are kept with an output: [left, top, right, bottom] fractions cut. */
const CROPS: readonly (readonly [number, number, number, number])[] = [
  [0.05, 0.05, 0.05, 0.05],
  [0.1, 0, 0, 0],
  [0, 0.1, 0, 0],
  [0, 0, 0.1, 0],
  [0, 0, 0, 0.1],
  [0.1, 0.1, 0, 0],
  [0, 0.1, 0.1, 0],
  [0.1, 0, 0, 0.1],
  [0, 0, 0.1, 0.1],
];

/** Every hash is taken from a grey copy this wide at most (decoded once, cropped from memory). */
const WORK_SIDE = 512;

export function sha256Hex(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The pHash's 64 bits as 16 hex digits. */
function toHex(bits: string): string {
  let hex = '';
  for (let i = 0; i < 64; i += 4) hex += parseInt(bits.slice(i, i + 4), 2).toString(16);
  return hex;
}

const POPCOUNT = Array.from({ length: 16 }, (_, n) => (n & 1) + ((n >> 1) & 1) + ((n >> 2) & 1) + (n >> 3));

/** Differing bits between two 16-hex-digit hashes. */
export function hammingHex(a: string, b: string): number {
  let bits = 0;
  for (let i = 0; i < 16; i++) bits += POPCOUNT[parseInt(a[i], 16) ^ parseInt(b[i], 16)];
  return bits;
}

/**
 * The fingerprint of an image (PNG, JPEG, WebP); `maxPixels` is the decode budget, checked from the
 * header before anything is decoded. CPU work: run it on the engine pool, not a serving thread.
 */
export async function fingerprintImage(
  data: Buffer,
  options: { maxPixels: number; crops?: boolean },
): Promise<ImageFingerprint> {
  const meta = await sharp(data, { limitInputPixels: false }).metadata();
  if ((meta.width ?? 0) * (meta.height ?? 0) > options.maxPixels)
    throw new DecodeBudgetError('image over the decoding budget');
  const { data: grey, info } = await sharp(data, { limitInputPixels: options.maxPixels })
    .rotate()
    .greyscale()
    .resize(WORK_SIDE, WORK_SIDE, { fit: 'inside', withoutEnlargement: true })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const raw = { width: info.width, height: info.height, channels: info.channels };
  const hashOf = async (cut?: readonly [number, number, number, number]) => {
    let input = sharp(grey, { raw });
    if (cut) {
      const left = Math.round(cut[0] * raw.width);
      const top = Math.round(cut[1] * raw.height);
      const width = raw.width - left - Math.round(cut[2] * raw.width);
      const height = raw.height - top - Math.round(cut[3] * raw.height);
      input = input.extract({ left, top, width, height });
    }
    return toHex(await phash(await input.png({ compressionLevel: 0 }).toBuffer()));
  };
  const whole = await hashOf();
  const variants = [whole];
  if (options.crops !== false) for (const cut of CROPS) variants.push(await hashOf(cut));
  return { sha256: sha256Hex(data), phash: whole, variants };
}

/** Frames sampled from a video for its hashes (evenly over its length). */
export const VIDEO_SAMPLE_FRAMES = 8;

/** A sampled frame this flat (grey standard deviation) is left out: black and fade frames match anything. */
const FLAT_FRAME_STDEV = 6;

/**
 * Frames of a video for its perceptual hashes: VIDEO_SAMPLE_FRAMES frames at evenly spaced times
 * (the middle of each eighth of its length), scaled to 256 px wide, as PNGs; flat frames (black,
 * fades) dropped. A re-encode keeps the timing, so a copy's frames are the same moments. ffmpeg
 * runs as a child process under the decoders' memory cap (`ffmpeg`, `ffprobe`: their paths).
 */
export async function sampleVideoFrames(
  videoPath: string,
  tools: { ffmpeg: string; ffprobe: string },
  count = VIDEO_SAMPLE_FRAMES,
): Promise<Buffer[]> {
  const run = promisify(execFile);
  const probed = await run(tools.ffprobe, [
    '-v',
    'error',
    '-show_entries',
    'format=duration',
    '-of',
    'default=noprint_wrappers=1:nokey=1',
    videoPath,
  ]);
  const duration = Number(probed.stdout.trim());
  if (!Number.isFinite(duration) || duration <= 0) return [];
  const frames: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const at = ((i + 0.5) * duration) / count;
    const { stdout } = (await run(
      tools.ffmpeg,
      [
        '-v',
        'error',
        '-ss',
        at.toFixed(3),
        '-i',
        videoPath,
        '-frames:v',
        '1',
        '-vf',
        'scale=256:-2',
        '-f',
        'image2pipe',
        '-vcodec',
        'png',
        '-',
      ],
      { encoding: 'buffer', maxBuffer: 16 * 1024 * 1024 },
    )) as unknown as { stdout: Buffer };
    if (stdout.length === 0) continue;
    const stats = await sharp(stdout).greyscale().stats();
    if ((stats.channels[0]?.stdev ?? 0) < FLAT_FRAME_STDEV) continue;
    frames.push(stdout);
  }
  return frames;
}

/**
 * Whether a searched video is a stored one: at least half of its sampled frames lie within
 * PHASH_MATCH_BITS of one of the stored video's frames (one shared frame is not enough: two videos
 * may share a still). The distance given is the median of the frames' best distances.
 */
export function videoFramesMatch(searched: string[], stored: string[]): { match: boolean; distance: number } {
  if (searched.length === 0 || stored.length === 0) return { match: false, distance: 64 };
  const best = searched.map((a) => Math.min(...stored.map((b) => hammingHex(a, b)))).sort((x, y) => x - y);
  const close = best.filter((d) => d <= PHASH_MATCH_BITS).length;
  return { match: close * 2 >= searched.length, distance: best[Math.floor((best.length - 1) / 2)] };
}
