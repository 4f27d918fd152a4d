import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { Model } from 'mongoose';
import { REPORT_LIMITS } from '@studio/contracts';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CAPPED_FFMPEG,
  CAPPED_FFPROBE,
  hammingHex,
  PHASH_MATCH_BITS,
  sampleVideoFrames,
  sha256Hex,
  videoFramesMatch,
  type ImageFingerprint,
} from '@studio/inference';
import { EngineRegistry } from '../engines';
import { BlockedHash, OutputFingerprint } from './takedown.schemas';

/** A picture's hashes as they are stored and searched. */
export interface StoredPrint {
  sha256: string;
  variants: string[];
  bands: string[];
  /** A video: `variants` are its sampled frames' hashes. */
  video?: boolean;
}

/** One stored output that is a copy of a searched picture. */
export interface CopyFound {
  itemId: string;
  ownerId: string;
  method: 'exact' | 'perceptual';
  distance: number;
  sha256: string;
  createdAt: Date;
  /** A job's stored input rather than an output item. */
  input?: { jobId: string; index: number; storageKey: string };
}

type PrintRow = OutputFingerprint & { _id: string };

function found(row: PrintRow, method: CopyFound['method'], distance: number): CopyFound {
  return {
    itemId: row._id,
    ownerId: row.ownerId,
    method,
    distance,
    sha256: row.sha256,
    createdAt: row.createdAt,
    ...(row.jobId && row.storageKey
      ? { input: { jobId: row.jobId, index: row.inputIndex ?? 0, storageKey: row.storageKey } }
      : {}),
  };
}

/**
 * The four 16-bit bands of each hash, tagged with their place: two hashes within 3 bits share at
 * least one band exactly (pigeonhole), so an indexed `$in` on bands finds them without a scan;
 * closer look (Hamming distance on the candidates) decides.
 */
export function bandsOf(hashes: string[]): string[] {
  const bands = new Set<string>();
  for (const hash of hashes) for (let i = 0; i < 4; i++) bands.add(`${i}${hash.slice(i * 4, i * 4 + 4)}`);
  return [...bands];
}

export function storedPrint(print: ImageFingerprint): StoredPrint {
  return { sha256: print.sha256, variants: print.variants, bands: bandsOf(print.variants) };
}

/** The closest of a stored picture's hashes (whole and crops) to any of the searched ones. */
function distanceTo(searched: string[], stored: string[]): number {
  let best = 64;
  for (const a of searched) for (const b of stored) best = Math.min(best, hammingHex(a, b));
  return best;
}

/**
 * How far a searched picture or video is from a stored one, and whether it is the same: two videos
 * frame by frame (half their sampled frames alike); otherwise the closest pair of hashes (a still of
 * a video, or a picture, within 10 bits of one frame or crop).
 */
function compare(searched: StoredPrint, stored: { variants: string[]; video?: boolean }) {
  if (searched.video && stored.video) return videoFramesMatch(searched.variants, stored.variants);
  const distance = distanceTo(searched.variants, stored.variants);
  return { match: distance <= PHASH_MATCH_BITS, distance };
}

/**
 * Finds copies of a picture among every stored output (all accounts) and keeps the block list of
 * removed pictures. Hashing runs on the local engine's pool threads, never on this thread.
 */
@Injectable()
export class CopyFinder {
  constructor(
    @InjectModel(OutputFingerprint.name) private readonly prints: Model<OutputFingerprint>,
    @InjectModel(BlockedHash.name) private readonly blocked: Model<BlockedHash>,
    private readonly engines: EngineRegistry,
  ) {}

  /** Hashes of images on the engine pool; `crops` for stored outputs (their crops are kept too). */
  async fingerprint(images: Buffer[], crops: boolean): Promise<StoredPrint[]> {
    if (images.length === 0) return [];
    const prints = await this.engines.fingerprinter().fingerprint({ images, crops });
    return prints.map(storedPrint);
  }

  /**
   * A video's hashes: its exact SHA-256 and the pHashes of its sampled frames (ffmpeg in a child
   * process picks them, the engine pool hashes them), so a re-encoded copy is found frame by frame.
   */
  async fingerprintVideo(data: Buffer, path?: string): Promise<StoredPrint> {
    const dir = path ? undefined : await mkdtemp(join(tmpdir(), 'video-print-'));
    try {
      const file = path ?? join(dir!, 'video.mp4');
      if (!path) await writeFile(file, data);
      const frames = await sampleVideoFrames(file, { ffmpeg: CAPPED_FFMPEG, ffprobe: CAPPED_FFPROBE }).catch(
        () => [] as Buffer[],
      );
      const variants = [...new Set((await this.fingerprint(frames, false)).map((p) => p.variants[0]))];
      return { sha256: sha256Hex(data), variants, bands: bandsOf(variants), video: true };
    } finally {
      if (dir) await rm(dir, { recursive: true, force: true });
    }
  }

  /** Records a stored output's hashes (idempotent: a rerun of its job writes the same record). */
  async record(outputs: { itemId: string; ownerId: string; print: StoredPrint }[]): Promise<void> {
    if (outputs.length === 0) return;
    await this.prints.bulkWrite(
      outputs.map(({ itemId, ownerId, print }) => ({
        updateOne: {
          filter: { _id: itemId },
          update: { $setOnInsert: { ownerId, ...print, createdAt: new Date() } },
          upsert: true,
        },
      })),
    );
  }

  /**
   * Records the hashes of a job's stored image inputs: they are served back to their owner (for
   * "Run again"), so a copy given to a tool is found and removed like an output.
   */
  async recordInputs(
    jobId: string,
    ownerId: string,
    inputs: { index: number; storageKey: string; print: StoredPrint }[],
  ): Promise<void> {
    if (inputs.length === 0) return;
    await this.prints.bulkWrite(
      inputs.map(({ index, storageKey, print }) => ({
        updateOne: {
          filter: { _id: `${jobId}:input:${index}` },
          update: {
            $setOnInsert: { ownerId, jobId, inputIndex: index, storageKey, ...print, createdAt: new Date() },
          },
          upsert: true,
        },
      })),
    );
  }

  /** A job's stored inputs are gone (with its outputs, or their retention over): so are their hashes. */
  async forgetInputs(jobId: string): Promise<void> {
    await this.prints.deleteMany({ jobId });
  }

  /** The ones of these items that have no hashes yet. */
  async unhashed(itemIds: string[]): Promise<Set<string>> {
    if (itemIds.length === 0) return new Set();
    const have = await this.prints
      .find({ _id: { $in: itemIds } })
      .select({ _id: 1 })
      .lean();
    const hashed = new Set(have.map((row) => row._id));
    return new Set(itemIds.filter((id) => !hashed.has(id)));
  }

  /** Removing a block-list entry (an appeal reversed the removal of that picture). */
  async unblock(reportId: string, key: string): Promise<void> {
    await this.blocked.deleteOne({ _id: `${reportId}:${key}` });
  }

  async printOf(itemId: string): Promise<StoredPrint | null> {
    const found = await this.prints.findById(itemId).lean();
    return found
      ? {
          sha256: found.sha256,
          variants: found.variants,
          bands: found.bands,
          ...(found.video ? { video: true } : {}),
        }
      : null;
  }

  /** Stored outputs that are the same picture: the same bytes, or a perceptual hash within 10 bits. */
  async findCopies(print: StoredPrint): Promise<CopyFound[]> {
    const candidates = await this.prints
      .find({ $or: [{ sha256: print.sha256 }, { bands: { $in: print.bands } }] })
      .limit(REPORT_LIMITS.maxMatches * 5)
      .lean();
    const copies: CopyFound[] = [];
    for (const candidate of candidates as PrintRow[]) {
      if (candidate.sha256 === print.sha256) {
        copies.push(found(candidate, 'exact', 0));
        continue;
      }
      const { match, distance } = compare(print, candidate);
      if (match) copies.push(found(candidate, 'perceptual', distance));
    }
    return copies.sort((a, b) => a.distance - b.distance).slice(0, REPORT_LIMITS.maxMatches);
  }

  /**
   * Every stored picture with exactly these bytes (the "known identical copies" of pictures found
   * another way: a stored input has no crop hashes, so a cropped report finds it through its original).
   */
  async sameBytes(sha256s: string[]): Promise<CopyFound[]> {
    if (sha256s.length === 0) return [];
    const rows = await this.prints
      .find({ sha256: { $in: sha256s } })
      .limit(REPORT_LIMITS.maxMatches)
      .lean();
    return (rows as PrintRow[]).map((row) => found(row, 'exact', 0));
  }

  /** Puts removed pictures on the block list (idempotent per report and picture). */
  async block(reportId: string, pictures: { key: string; print: StoredPrint }[]): Promise<void> {
    if (pictures.length === 0) return;
    await this.blocked.bulkWrite(
      pictures.map(({ key, print }) => ({
        updateOne: {
          filter: { _id: `${reportId}:${key}` },
          update: { $setOnInsert: { reportId, ...print, createdAt: new Date() } },
          upsert: true,
        },
      })),
    );
  }

  /**
   * Whether any of these images is a removed picture (tool inputs, before a charge). Hashed on the
   * engine pool only when the block list has anything in it.
   */
  async anyBlocked(images: Buffer[]): Promise<boolean> {
    return (await this.screenInputs(images)).blocked;
  }

  /**
   * Tool inputs before anything is stored or charged: whether any is a removed picture, and their
   * hashes when they were made for that. Hashed on the engine pool only while the block list has
   * entries: a submission waits behind whatever the pool computes (one thread on two cores), so
   * the hashes kept for reports are otherwise made by the job's run (the runner's recordInputs).
   */
  async screenInputs(images: Buffer[]): Promise<{ blocked: boolean; prints: StoredPrint[] }> {
    if (images.length === 0 || !(await this.blocked.exists({}))) return { blocked: false, prints: [] };
    const prints = await this.fingerprint(images, false);
    for (const print of prints) if (await this.isBlocked(print)) return { blocked: true, prints };
    return { blocked: false, prints };
  }

  /** Whether a job's stored input (by its index) has its hashes recorded already. */
  async inputRecorded(jobId: string, index: number): Promise<boolean> {
    return !!(await this.prints.exists({ _id: `${jobId}:input:${index}` }));
  }

  /** Whether a picture is one that was removed (same bytes, or within 10 bits of a removed one). */
  async isBlocked(print: StoredPrint): Promise<boolean> {
    const candidates = await this.blocked
      .find({ $or: [{ sha256: print.sha256 }, { bands: { $in: print.bands } }] })
      .limit(1000)
      .lean();
    // A video output with one frame of a removed picture (or video) is withheld: the closest pair.
    return candidates.some(
      (candidate) =>
        candidate.sha256 === print.sha256 ||
        distanceTo(print.variants, candidate.variants) <= PHASH_MATCH_BITS,
    );
  }
}
