import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';

/**
 * A check started at the external provider (the _id is the provider's reference: Persona's
 * inquiry id) for one account, and its outcome once settled. Settled once: a replayed or late
 * webhook finds the outcome and changes nothing. Nothing of the person is kept.
 */
@Schema({ collection: 'age_provider_checks', versionKey: false })
export class AgeProviderCheck {
  @Prop({ type: String, required: true })
  _id!: string;

  @Prop({ type: String, required: true, index: true })
  userId!: string;

  @Prop({ type: String, required: true })
  provider!: string;

  @Prop({ required: true })
  createdAt!: Date;

  @Prop({ type: String, enum: ['approved', 'declined'] })
  outcome?: 'approved' | 'declined';

  @Prop()
  settledAt?: Date;
}

export const AgeProviderCheckSchema = SchemaFactory.createForClass(AgeProviderCheck);
