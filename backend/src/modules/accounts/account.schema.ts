import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { HydratedDocument } from 'mongoose';
import { ROLES, type Role, type SuspensionReason } from '@studio/contracts';

export interface AccountSuspension {
  at: Date;
  reason: SuspensionReason;
  reportId: string;
  removals: number;
  /** The staff member whose decision reached the count. */
  byId: string;
}

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

  /**
   * Every admin who ever gave this account a staff role (kept after a demotion): staff never
   * credit an account they promoted, nor the one who promoted them (SupportCreditsService).
   */
  @Prop({ type: [String], default: undefined })
  promotedBy?: string[];

  @Prop({ default: false })
  verified!: boolean;

  @Prop({ default: false })
  early!: boolean;

  /**
   * The owner opened the link mailed to `email` (not the Patreon/admin `verified` badge above).
   * Card payments need it.
   */
  @Prop({ default: false })
  emailVerified!: boolean;

  /**
   * Grows with every password change or reset. A login session records the version of the
   * password it checked, and the session guard refuses a session whose version is behind: a login
   * that checked the old password but stored its session after the change ended the listed ones
   * cannot outlive it.
   */
  @Prop({ default: 0 })
  credentialsVersion!: number;

  /**
   * Credits. Only billing's AccountBalances writes the three money fields, each change one
   * conditional atomic update (see there); accounts only read the balance.
   */
  @Prop({ default: 0, min: 0 })
  balance!: number;

  /** Counts the balance changes: the version an applied ledger entry records. */
  @Prop({ default: 0 })
  ledgerVersion!: number;

  /**
   * Keys of the latest ledger entries decided on this balance (`!<key>` for a voided one): the
   * guard that applies each entry at most once. Trimmed to the latest ones whose entries are final.
   */
  @Prop({ type: [String], default: [] })
  ledgerRecent!: string[];

  /** When the person confirmed being 18 or older (the adult-content gate). */
  @Prop({ required: true })
  adultConfirmedAt!: Date;

  @Prop()
  lastLoginAt?: Date;

  /**
   * Set while the account is suspended (docs/takedown.md, Suspension): when, the reason code, the
   * report whose removal reached TAKEDOWN_SUSPEND_AFTER and the count then. Login, sessions and
   * API keys are refused while it is set; removed when the suspension is lifted.
   */
  @Prop({ type: Object })
  suspension?: AccountSuspension;

  /** The Stripe customer made at the first purchase, for the billing portal. */
  @Prop()
  stripeCustomerId?: string;

  createdAt?: Date;
}

export type AccountDocument = HydratedDocument<Account>;
export const AccountSchema = SchemaFactory.createForClass(Account);
