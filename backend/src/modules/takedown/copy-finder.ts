import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { Model } from 'mongoose';
import { REPORT_LIMITS } from '@studio/contracts';
import { hammingHex, PHASH_MATCH_BITS, type ImageFingerprint } from '@studio/inference';
import { EngineRegistry } from '../engines';
import { BlockedHash, OutputFingerprint } from './takedown.schemas';

/** A picture's hashes as they are stored and searched. */
export interface StoredPrint {
  sha256: string;
  variants: string[];
  bands: string[];
}

/** One stored output that is a copy of a searched picture. */
export interface CopyFound {
  itemId: string;
  ownerId: string;
  method: 'exact' | 'perceptual';
  distance: number;
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

  async printOf(itemId: string): Promise<StoredPrint | null> {
    const found = await this.prints.findById(itemId).lean();
    return found ? { sha256: found.sha256, variants: found.variants, bands: found.bands } : null;
  }

  /** Stored outputs that are the same picture: the same bytes, or a perceptual hash within 10 bits. */
  async findCopies(print: StoredPrint): Promise<CopyFound[]> {
    const candidates = await this.prints
      .find({ $or: [{ sha256: print.sha256 }, { bands: { $in: print.bands } }] })
      .limit(REPORT_LIMITS.maxMatches * 5)
      .lean();
    const found: CopyFound[] = [];
    for (const candidate of candidates) {
      if (candidate.sha256 === print.sha256) {
        found.push({ itemId: candidate._id, ownerId: candidate.ownerId, method: 'exact', distance: 0 });
        continue;
      }
      const distance = distanceTo(print.variants, candidate.variants);
      if (distance <= PHASH_MATCH_BITS) {
        found.push({ itemId: candidate._id, ownerId: candidate.ownerId, method: 'perceptual', distance });
      }
    }
    return found.sort((a, b) => a.distance - b.distance).slice(0, REPORT_LIMITS.maxMatches);
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
    if (images.length === 0 || !(await this.blocked.exists({}))) return false;
    for (const print of await this.fingerprint(images, false)) if (await this.isBlocked(print)) return true;
    return false;
  }

  /** Whether a picture is one that was removed (same bytes, or within 10 bits of a removed one). */
  async isBlocked(print: StoredPrint): Promise<boolean> {
    const candidates = await this.blocked
      .find({ $or: [{ sha256: print.sha256 }, { bands: { $in: print.bands } }] })
      .limit(1000)
      .lean();
    return candidates.some(
      (candidate) =>
        candidate.sha256 === print.sha256 ||
        distanceTo(print.variants, candidate.variants) <= PHASH_MATCH_BITS,
    );
  }
}
