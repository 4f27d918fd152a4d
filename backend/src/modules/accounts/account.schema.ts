import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { HydratedDocument } from 'mongoose';
import { ROLES, type Role } from '@studio/contracts';

@Schema({ collection: 'accounts', timestamps: true })
export class Account {
  /** As the person typed it; shown on screens. */
  @Prop({ required: true })
  username!: string;

  /** Lower-cased copy: names are unique regardless of letter case. */
  @Prop({ required: true, unique: true })
  usernameKey!: string;

  @Prop({ required: true, unique: true })
  email!: string;

  @Prop({ required: true })
  passwordHash!: string;

  @Prop({ type: String, enum: ROLES, default: 'user' })
  role!: Role;

  @Prop({ default: false })
  verified!: boolean;

  @Prop({ default: false })
  early!: boolean;

  /** Coin balance. Changed only through the billing ledger (a later module). */
  @Prop({ default: 0, min: 0 })
  balance!: number;

  /**
   * Ledger entries applied to the balance but not yet marked applied in the ledger: the tag that
   * makes each ledger step idempotent without multi-document transactions (see LedgerService).
   */
  @Prop({ type: [String], default: [] })
  pendingLedger!: string[];

  /** When the person confirmed being 18 or older (the adult-content gate). */
  @Prop({ required: true })
  adultConfirmedAt!: Date;

  @Prop()
  lastLoginAt?: Date;

  /** The Stripe customer made at the first purchase, for the billing portal. */
  @Prop()
  stripeCustomerId?: string;

  createdAt?: Date;
}

export type AccountDocument = HydratedDocument<Account>;
export const AccountSchema = SchemaFactory.createForClass(Account);
