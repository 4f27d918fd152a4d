import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';

/** One setting per document: `flags`, or `notice:<tool>`; last write wins. */
@Schema({ collection: 'operations_settings', versionKey: false })
export class OperationsSetting {
  @Prop({ type: String })
  _id!: string;

  @Prop({ type: Object, required: true })
  value!: Record<string, unknown>;

  @Prop({ required: true })
  updatedAt!: Date;

  @Prop()
  updatedBy?: string;
}

export const OperationsSettingSchema = SchemaFactory.createForClass(OperationsSetting);
