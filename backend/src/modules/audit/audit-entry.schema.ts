import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';

@Schema({ _id: false, versionKey: false })
export class AuditAuthor {
  @Prop()
  userId?: string;

  @Prop({ required: true })
  username!: string;
}

/** One line of the activity log, in the spec's shape (category, author, createdOn, message, detail). */
@Schema({ collection: 'audit_log', versionKey: false })
export class AuditEntry {
  @Prop({ required: true })
  category!: string;

  @Prop({ type: AuditAuthor })
  author?: AuditAuthor;

  @Prop({ required: true })
  createdOn!: Date;

  @Prop({ required: true })
  message!: string;

  @Prop()
  detail?: string;

  /**
   * The author's name lower-cased (names are unique regardless of case): what the user filter
   * matches. Top level, as the patched FerretDB uses an index only on a top-level field.
   */
  @Prop()
  authorKey?: string;

  /** The domain event this entry records: written once per event, however often it is delivered. */
  @Prop({ unique: true, sparse: true })
  eventId?: string;

  /**
   * Credits spent, on the entry of a ledger capture only: the admin totals sum this field, set by
   * the listener from the event's amount, never the message (which may quote user-written names).
   */
  @Prop()
  credits?: number;

  /** Images face-swapped, on the entry of a finished face swap job only: the admin chart sums it. */
  @Prop()
  swaps?: number;
}

export const AuditEntrySchema = SchemaFactory.createForClass(AuditEntry);
// The log table pages newest first by _id (keyset: `_id < cursor`), an ObjectId whose leading
// seconds are createdOn's (AuditService.append), optionally within one category or of one user; the statistics'
// recount and fallback scan read a createdOn range.
AuditEntrySchema.index({ category: 1, _id: -1 });
AuditEntrySchema.index({ authorKey: 1, _id: -1 });
AuditEntrySchema.index({ createdOn: -1 });
