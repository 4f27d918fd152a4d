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

  /** The domain event this entry records: written once per event, however often it is delivered. */
  @Prop({ unique: true, sparse: true })
  eventId?: string;
}

export const AuditEntrySchema = SchemaFactory.createForClass(AuditEntry);
// The log table reads newest first with _id as tie-break, optionally within one category: these
// serve its pages and its date-range filter without a sort in memory (on MongoDB; FerretDB 1.x
// sorts in memory whatever the indexes).
AuditEntrySchema.index({ createdOn: -1, _id: -1 });
AuditEntrySchema.index({ category: 1, createdOn: -1, _id: -1 });
