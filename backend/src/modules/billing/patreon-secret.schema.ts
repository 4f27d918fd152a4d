import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';

/** A one-time secret that links a Patreon supporter: only its SHA-256 is stored, as the _id. */
@Schema({ collection: 'patreon_secrets', versionKey: false })
export class PatreonSecret {
  @Prop({ type: String, required: true })
  _id!: string;

  @Prop({ required: true })
  issuedBy!: string;

  @Prop({ required: true, default: () => new Date() })
  issuedAt!: Date;
}

export const PatreonSecretSchema = SchemaFactory.createForClass(PatreonSecret);

/**
 * The use of a secret. Its _id is the secret's hash, so a secret can be redeemed once: an insert is
 * the claim (a conditional update would not be atomic on FerretDB).
 */
@Schema({ collection: 'patreon_redemptions', versionKey: false })
export class PatreonRedemption {
  @Prop({ type: String, required: true })
  _id!: string;

  @Prop({ required: true })
  usedBy!: string;

  @Prop({ required: true, default: () => new Date() })
  usedAt!: Date;
}

export const PatreonRedemptionSchema = SchemaFactory.createForClass(PatreonRedemption);
