import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Types } from 'mongoose';
import type { MatchMethod, ReportCategory, ReporterRole, ReportStatus } from '@studio/contracts';

/** A picture's hashes as stored: exact SHA-256, pHashes (whole + crops) and their 16-bit bands (indexed). */
abstract class HashedPicture {
  @Prop({ required: true, index: true })
  sha256!: string;

  @Prop({ type: [String], required: true })
  variants!: string[];

  @Prop({ type: [String], required: true, index: true })
  bands!: string[];

  /** A video's hashes: `variants` are its sampled frames' (matched frame by frame, videoFramesMatch). */
  @Prop()
  video?: boolean;

  @Prop({ required: true })
  createdAt!: Date;
}

/**
 * The hashes of one stored picture: an output (its _id is the item's), or a picture a user gave a
 * tool, stored with the job for "Run again" and served back at /api/jobs/{jobId}/inputs/{index}
 * (_id `${jobId}:input:${index}`, with its storage key): a copy there is a copy on this service too.
 */
@Schema({ collection: 'output_fingerprints', versionKey: false })
export class OutputFingerprint extends HashedPicture {
  @Prop({ type: String, required: true })
  _id!: string;

  @Prop({ required: true, index: true })
  ownerId!: string;

  /** Set for a job's stored input (absent: an output item). */
  @Prop({ index: true, sparse: true })
  jobId?: string;

  @Prop()
  inputIndex?: number;

  @Prop()
  storageKey?: string;
}
export const OutputFingerprintSchema = SchemaFactory.createForClass(OutputFingerprint);

/**
 * A picture removed after a valid report: an output whose hash lands here is withheld. Kept while
 * the removal stands (docs/takedown.md), without the picture itself.
 */
@Schema({ collection: 'blocked_hashes', versionKey: false })
export class BlockedHash extends HashedPicture {
  /** `${reportId}:${itemId or 'upload'}`: blocking the same picture twice is one record. */
  @Prop({ type: String, required: true })
  _id!: string;

  @Prop({ required: true })
  reportId!: string;
}
export const BlockedHashSchema = SchemaFactory.createForClass(BlockedHash);

export interface ReportMatch {
  /** The item's id, or `${jobId}:input:${index}` for a job's stored input. */
  itemId: string;
  ownerId: string;
  ownerName: string;
  method: MatchMethod;
  distance: number;
  removed?: boolean;
  /** A job's stored input (absent: an output item). */
  input?: { jobId: string; index: number; storageKey: string };
  /** An exact copy (same bytes) of this other match. */
  copyOf?: string;
  /**
   * The removed file, kept (never served) until the appeal window closes or the appeal is decided,
   * so that a founded appeal can put it back (DSA Art. 20(4)); absent for child sexual abuse material.
   */
  quarantineKey?: string;
}

/** An owner's one appeal against the removal of one item (DSA Art. 20); _id `${reportId}:${itemId}`. */
@Schema({ collection: 'takedown_appeals', versionKey: false })
export class RemovalAppeal {
  @Prop({ type: String, required: true })
  _id!: string;

  @Prop({ required: true, index: true })
  reportId!: string;

  @Prop({ required: true })
  itemId!: string;

  @Prop({ required: true })
  ownerId!: string;

  @Prop({ required: true })
  text!: string;

  @Prop({ required: true })
  at!: Date;

  /** Staff's decision on the appeal (DSA Art. 20(4)): the removal upheld, or reversed. */
  @Prop({ type: Object })
  decision?: { outcome: 'upheld' | 'reversed'; reason: string; by: string; byId: string; at: Date };
}
export const RemovalAppealSchema = SchemaFactory.createForClass(RemovalAppeal);

/** One notice (TAKE IT DOWN Act; DSA Art. 16), its 48-hour clock and its decision. */
@Schema({ collection: 'takedown_reports', versionKey: false })
export class TakedownReport {
  @Prop({ type: String, required: true })
  status!: ReportStatus;

  @Prop({ type: String, required: true })
  category!: ReportCategory;

  @Prop({ type: String, required: true })
  reporterRole!: ReporterRole;

  @Prop({ type: Object, required: true })
  reporter!: { name: string; email: string };

  @Prop()
  url?: string;

  @Prop({ required: true })
  explanation!: string;

  /** Empty only for an anonymous child sexual abuse notice (DSA Art. 16(2)(c)). */
  @Prop({ type: String, default: '' })
  signature!: string;

  @Prop({ required: true })
  goodFaith!: boolean;

  /** The reported copy, kept for the reviewer until the decision (storage key), and its hashes. */
  @Prop()
  fileKey?: string;

  @Prop()
  fileType?: string;

  @Prop({ type: Object })
  fingerprint?: { sha256: string; variants: string[]; bands: string[]; video?: boolean };

  @Prop({ type: [Object], default: [] })
  matches!: ReportMatch[];

  @Prop({ required: true, index: true })
  receivedAt!: Date;

  @Prop({ required: true, index: true })
  deadline!: Date;

  @Prop({ type: Object })
  decision?: { action: 'remove' | 'reject'; reason: string; by: string; byId: string; at: Date };

  /** The quarantined files were deleted (the appeal window closed): nothing of the picture is kept. */
  @Prop()
  quarantineClearedAt?: Date;
}
export type TakedownReportRecord = TakedownReport & { _id: Types.ObjectId };
export const TakedownReportSchema = SchemaFactory.createForClass(TakedownReport);
TakedownReportSchema.index({ status: 1, deadline: 1 });
TakedownReportSchema.index({ 'decision.at': 1 });
// An owner's confirmed removals (the suspension count, ReportsService.confirmedRemovals).
TakedownReportSchema.index({ 'matches.ownerId': 1 });
