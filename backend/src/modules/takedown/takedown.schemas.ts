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

  @Prop({ required: true })
  createdAt!: Date;
}

/** The hashes of one stored output; its _id is the item's. */
@Schema({ collection: 'output_fingerprints', versionKey: false })
export class OutputFingerprint extends HashedPicture {
  @Prop({ type: String, required: true })
  _id!: string;

  @Prop({ required: true, index: true })
  ownerId!: string;
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
  itemId: string;
  ownerId: string;
  ownerName: string;
  method: MatchMethod;
  distance: number;
  removed?: boolean;
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
  fingerprint?: { sha256: string; variants: string[]; bands: string[] };

  @Prop({ type: [Object], default: [] })
  matches!: ReportMatch[];

  @Prop({ required: true, index: true })
  receivedAt!: Date;

  @Prop({ required: true, index: true })
  deadline!: Date;

  @Prop({ type: Object })
  decision?: { action: 'remove' | 'reject'; reason: string; by: string; byId: string; at: Date };
}
export type TakedownReportRecord = TakedownReport & { _id: Types.ObjectId };
export const TakedownReportSchema = SchemaFactory.createForClass(TakedownReport);
TakedownReportSchema.index({ status: 1, deadline: 1 });
