import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';

/**
 * One marked output: the 32-bit id its watermark carries (the _id), and what it maps back to.
 * Read by the verify page (tool and time for everyone; job and owner for admins only).
 */
@Schema({ collection: 'provenance_marks', versionKey: false })
export class ProvenanceMark {
  @Prop({ type: Number, required: true })
  _id!: number;

  @Prop({ required: true, unique: true })
  itemId!: string;

  @Prop({ required: true })
  jobId!: string;

  @Prop({ required: true })
  ownerId!: string;

  @Prop({ required: true })
  username!: string;

  @Prop({ required: true })
  tool!: string;

  @Prop({ required: true })
  createdAt!: Date;
}

export type ProvenanceMarkRecord = ProvenanceMark;
export const ProvenanceMarkSchema = SchemaFactory.createForClass(ProvenanceMark);
