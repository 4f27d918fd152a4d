import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Types } from 'mongoose';
import { LEDGER_KINDS, type LedgerKind } from '@studio/contracts';

export type LedgerState = 'pending' | 'applied' | 'rejected';
export type Settlement = 'captured' | 'refunded';

@Schema({ _id: false, versionKey: false })
export class LedgerActor {
  @Prop()
  userId?: string;

  @Prop({ required: true })
  username!: string;
}

/**
 * One change of one balance. Written 'pending' first, applied as a balance version, then marked
 * 'applied'; the unique key makes every operation idempotent.
 */
@Schema({ collection: 'ledger', versionKey: false })
export class LedgerEntry {
  /** The idempotency key is the _id: unique, and the one lookup every database serves fast. */
  @Prop({ type: String, required: true })
  _id!: string;

  @Prop({ type: Types.ObjectId, required: true, index: true })
  userId!: Types.ObjectId;

  @Prop({ required: true })
  username!: string;

  @Prop({ type: String, enum: LEDGER_KINDS, required: true })
  kind!: LedgerKind;

  /** Signed change of the balance. */
  @Prop({ required: true })
  amount!: number;

  @Prop({ type: String, required: true, default: 'pending', index: true })
  state!: LedgerState;

  @Prop({ required: true })
  reason!: string;

  @Prop({ type: LedgerActor })
  actor?: LedgerActor;

  @Prop()
  jobId?: string;

  @Prop()
  tool?: string;

  /** For a capture or refund: the reservation it settles. */
  @Prop()
  reservationKey?: string;

  /** For a reservation: how it ended (the `settle:` entry is the record; this is a copy). */
  @Prop({ type: String, default: undefined })
  settlement?: Settlement;

  /** For a reservation: when the recovery pass may give it back if no live job holds it. */
  @Prop()
  expiresAt?: Date;

  @Prop()
  balanceAfter?: number;

  /** Whether the balance.changed event for this entry has been published. */
  @Prop({ default: false })
  announced!: boolean;

  @Prop({ required: true, default: () => new Date(), index: true })
  createdAt!: Date;

  /** Which ledger instance inserted the entry: tells the winner of a race for one key. */
  @Prop()
  createdBy?: string;

  @Prop()
  appliedAt?: Date;
}

export const LedgerEntrySchema = SchemaFactory.createForClass(LedgerEntry);
LedgerEntrySchema.index({ userId: 1, createdAt: -1 });
LedgerEntrySchema.index({ kind: 1, tool: 1, createdAt: 1 });
