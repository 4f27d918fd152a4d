import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Types } from 'mongoose';
import { API_KEY_SCOPES, type ApiKeyScope } from '@studio/contracts';

/**
 * A personal API key. Only a SHA-256 of its secret is kept (the secret is 32 random bytes, so a
 * fast hash is enough: there is nothing to guess); `preview` is its first characters, to tell keys
 * apart on the account page.
 */
@Schema({ collection: 'api_keys', versionKey: false, timestamps: { createdAt: true, updatedAt: false } })
export class ApiKey {
  @Prop({ type: Types.ObjectId, required: true, index: true })
  owner!: Types.ObjectId;

  @Prop({ required: true })
  name!: string;

  @Prop({ required: true, unique: true })
  secretHash!: string;

  @Prop({ required: true })
  preview!: string;

  @Prop({ type: [String], enum: API_KEY_SCOPES, required: true })
  scopes!: ApiKeyScope[];

  @Prop({ type: Number })
  monthlyCap?: number;

  /** Set when the key ends on a password change: the owner's password version it was made under. */
  @Prop({ type: Number })
  credentialsVersion?: number;

  @Prop({ type: Date })
  lastUsedAt?: Date;

  @Prop({ type: Date })
  revokedAt?: Date;

  createdAt!: Date;
}

export const ApiKeySchema = SchemaFactory.createForClass(ApiKey);

/**
 * What one key spent in one UTC month (`_id`: `<keyId>:<YYYY-MM>`), and the jobs counted in it:
 * each job is counted once and given back once (its refund), by guarded atomic updates of this one
 * document, so the cap holds exactly under parallel submissions without transactions.
 */
@Schema({ collection: 'api_key_spends', versionKey: false })
export class ApiKeySpend {
  @Prop({ type: String, required: true })
  _id!: string;

  @Prop({ type: Number, required: true, default: 0 })
  coins!: number;

  /** `<jobId>:<coins>` of every job counted and not given back. */
  @Prop({ type: [String], default: [] })
  jobs!: string[];
}

export const ApiKeySpendSchema = SchemaFactory.createForClass(ApiKeySpend);
