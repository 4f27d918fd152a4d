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
 * One change of one balance. Written 'pending' first (its unique key is the idempotency key),
 * applied to the account's balance by one guarded update, then marked 'applied' (or 'rejected').
 * See LedgerService.
 */
@Schema({ collection: 'ledger', versionKey: false })
export class LedgerEntry {
  /** The idempotency key is the _id: unique, and the one lookup every database serves fast. */
  @Prop({ type: String, required: true })
  _id!: string;

  @Prop({ type: Types.ObjectId, required: true })
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

  /** For a reservation: when the recovery pass asks whether a live job still holds it. */
  @Prop()
  expiresAt?: Date;

  /**
   * 'open' on a reservation until it settles (then removed): the recovery pass finds open holds
   * by this indexed equality, never by scanning the ledger for a date range.
   */
  @Prop({ type: String, index: true })
  hold?: 'open';

  /** The balance right after this entry applied (unknown when a recovery finished the entry). */
  @Prop()
  balanceAfter?: number;

  /** The account's ledgerVersion this entry applied at (unknown when a recovery finished it). */
  @Prop()
  version?: number;

  @Prop({ required: true, default: () => new Date() })
  createdAt!: Date;

  @Prop()
  appliedAt?: Date;
}

export const LedgerEntrySchema = SchemaFactory.createForClass(LedgerEntry);
// Each index costs every write of an entry; these serve a query each. Histories and exports:
LedgerEntrySchema.index({ userId: 1, createdAt: -1 });
// Support's bulk reimbursement of one tool's spends over a window:
LedgerEntrySchema.index({ kind: 1, tool: 1, createdAt: 1 });

/**
 * Indexes of earlier releases that no query needs (`userId` alone is the prefix of the history
 * index; nothing selects by `createdAt` alone): dropped at boot.
 */
export const RETIRED_LEDGER_INDEXES = ['userId_1', 'createdAt_1'];
