import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Schema as MongooseSchema } from 'mongoose';

/**
 * The outbox: each domain event is written here before it is handed to the queue, so an event
 * whose hand-off was interrupted is found and sent again by the relay.
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

  /** Null while the event still has to be sent (the row is deleted once the queue has it). */
  @Prop({ type: Date, default: null, index: true })
  dispatchedAt!: Date | null;
}

export const OutboxEventSchema = SchemaFactory.createForClass(OutboxEvent);
