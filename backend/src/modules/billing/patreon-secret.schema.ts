import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';

/** A one-time secret that links a Patreon supporter: only its SHA-256 is stored. */
@Schema({ collection: 'patreon_secrets', versionKey: false })
export class PatreonSecret {
  @Prop({ required: true, unique: true })
  hash!: string;

  @Prop({ required: true })
  issuedBy!: string;

  @Prop({ required: true, default: () => new Date() })
  issuedAt!: Date;

  @Prop({ type: String, default: null })
  usedBy!: string | null;

  @Prop({ type: Date, default: null })
  usedAt!: Date | null;
}

export const PatreonSecretSchema = SchemaFactory.createForClass(PatreonSecret);
