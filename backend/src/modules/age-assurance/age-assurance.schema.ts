import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { AGE_ASSURANCE_METHODS, type AgeAssuranceMethod } from '@studio/contracts';

/**
 * One account's age assurance (the _id is the account's id): how, when and the provider's reference
 * (a Stripe SetupIntent, or the staff member who checked). Never a card number, an ID image or a
 * date of birth: the record says only that the check passed.
 */
@Schema({ collection: 'age_assurances', versionKey: false })
export class AgeAssurance {
  @Prop({ type: String, required: true })
  _id!: string;

  @Prop({ type: String, required: true, enum: AGE_ASSURANCE_METHODS })
  method!: AgeAssuranceMethod;

  @Prop({ required: true })
  assuredAt!: Date;

  /** The provider's reference (Stripe's SetupIntent id), or for a manual check the staff member's username. */
  @Prop({ required: true })
  reference!: string;
}

export type AgeAssuranceRecord = AgeAssurance;
export const AgeAssuranceSchema = SchemaFactory.createForClass(AgeAssurance);
