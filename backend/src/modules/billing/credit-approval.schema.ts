import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { HydratedDocument, Types } from 'mongoose';
import { LedgerActor } from './ledger-entry.schema';

/**
 * A grant or upward adjustment above CREDIT_APPROVAL_THRESHOLD: it waits here until another admin
 * approves it (the credit is then applied once, keyed by this request's id) or rejects it.
 */
@Schema({
  collection: 'credit_approvals',
  versionKey: false,
  timestamps: { createdAt: true, updatedAt: false },
})
export class CreditApproval {
  @Prop({ type: String, enum: ['grant', 'adjustment'], required: true })
  kind!: 'grant' | 'adjustment';

  @Prop({ type: Types.ObjectId, required: true })
  userId!: Types.ObjectId;

  @Prop({ required: true })
  username!: string;

  @Prop({ required: true })
  amount!: number;

  @Prop({ required: true })
  reason!: string;

  @Prop({ type: String, enum: ['pending', 'approved', 'rejected'], default: 'pending', index: true })
  state!: 'pending' | 'approved' | 'rejected';

  @Prop({ type: LedgerActor, required: true })
  requestedBy!: LedgerActor;

  /** The requester's idempotency key: asking again with it returns the same request. */
  @Prop({ required: true })
  requestKey!: string;

  /** The UTC day whose staff credit usage this request counts against. */
  @Prop({ required: true })
  usageDay!: string;

  @Prop({ type: LedgerActor })
  decidedBy?: LedgerActor;

  @Prop()
  decidedAt?: Date;

  createdAt?: Date;
}

export type CreditApprovalDocument = HydratedDocument<CreditApproval>;
export const CreditApprovalSchema = SchemaFactory.createForClass(CreditApproval);
CreditApprovalSchema.index({ requestKey: 1 }, { unique: true });
