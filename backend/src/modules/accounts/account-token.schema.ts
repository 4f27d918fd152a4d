import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Types } from 'mongoose';

export const TOKEN_PURPOSES = ['verifyEmail', 'resetPassword'] as const;
export type TokenPurpose = (typeof TOKEN_PURPOSES)[number];

/**
 * A one-time link's token, kept only as its SHA-256: whoever reads the database (or a backup)
 * cannot use a link. The token itself is 32 random bytes, so a fast hash is enough (nothing to
 * guess), and the lookup by hash is an `_id` read.
 */
@Schema({ collection: 'account_tokens', versionKey: false })
export class AccountToken {
  /** sha256 of the token, hex. */
  @Prop({ type: String, required: true })
  _id!: string;

  @Prop({ type: Types.ObjectId, required: true, index: true })
  userId!: Types.ObjectId;

  @Prop({ type: String, enum: TOKEN_PURPOSES, required: true })
  purpose!: TokenPurpose;

  /** The address the link was sent to: a token proves only that address. */
  @Prop({ required: true })
  email!: string;

  /** MongoDB removes expired tokens by this TTL index; the check on use does not rely on it. */
  @Prop({ required: true, index: { expireAfterSeconds: 0 } })
  expiresAt!: Date;
}

export const AccountTokenSchema = SchemaFactory.createForClass(AccountToken);
