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

  /**
   * Set only on the account the boot-time seeding created for ADMIN_USERNAME: the one account
   * configuration may make (or make again) an admin. A self-registered namesake never is.
   */
  @Prop()
  seededAdmin?: boolean;

  @Prop({ default: false })
  verified!: boolean;

  @Prop({ default: false })
  early!: boolean;

  /** Highest balance version known to be written: a hint for finding the head (may lag). */
  @Prop({ default: 0 })
  balanceHead!: number;

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
