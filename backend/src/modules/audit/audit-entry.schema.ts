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
  @Prop({ required: true, index: true })
  category!: string;

  @Prop({ type: AuditAuthor })
  author?: AuditAuthor;

  @Prop({ required: true, index: true })
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
