import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Schema as MongooseSchema } from 'mongoose';

/**
 * The outbox: each domain event is written here before it is handed to the queue and deleted once
 * the queue has it, so a row still here is an interrupted hand-off that the relay sends again.
 */
@Schema({ collection: 'outbox', versionKey: false })
export class OutboxEvent {
  @Prop({ type: String, required: true })
  _id!: string;

  @Prop({ required: true })
  name!: string;

  @Prop({ type: MongooseSchema.Types.Mixed, required: true })
  payload!: unknown;

  @Prop({ required: true })
  occurredAt!: Date;
}

export const OutboxEventSchema = SchemaFactory.createForClass(OutboxEvent);
