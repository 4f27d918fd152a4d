import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { isValidObjectId, Model } from 'mongoose';
import type { Role } from '@studio/contracts';
import { Account, type AccountSuspension } from './account.schema';

export interface AccountRecord {
  id: string;
  username: string;
  email: string;
  passwordHash: string;
  role: Role;
  verified: boolean;
  early: boolean;
  emailVerified: boolean;
  /** The password's version (account.schema.ts): sessions made with an older one are void. */
  credentialsVersion: number;
  stripeCustomerId?: string;
  createdAt?: Date;
  /** Credits, as read with the account (only billing's AccountBalances writes them). */
  balance: number;
  /** Created by the boot-time seeding of ADMIN_USERNAME (not self-registered). */
  seededAdmin?: boolean;
  /** Login, sessions and API keys are refused while set (docs/takedown.md, Suspension). */
  suspended: boolean;
  suspension?: AccountSuspension;
}

export interface NewAccount {
  username: string;
  email: string;
  passwordHash: string;
  role: Role;
  adultConfirmedAt: Date;
  seededAdmin?: boolean;
  emailVerified?: boolean;
}

/** Storage of accounts behind a small port, so services never build queries themselves. */
@Injectable()
export class AccountsRepository {
  constructor(@InjectModel(Account.name) private readonly model: Model<Account>) {}

  async findById(id: string): Promise<AccountRecord | null> {
    if (!isValidObjectId(id)) return null;
    return toRecord(await this.model.findById(id).lean());
  }

  async findByEmail(email: string): Promise<AccountRecord | null> {
    return toRecord(await this.model.findOne({ email: email.toLowerCase() }).lean());
  }

  async setEmailVerified(id: string): Promise<void> {
    await this.model.updateOne({ _id: id }, { $set: { emailVerified: true } });
  }

  /** Account deletion's last step (its content and sessions are gone by then). */
  async remove(id: string): Promise<void> {
    if (isValidObjectId(id)) await this.model.deleteOne({ _id: id });
  }

  async findByUsername(username: string): Promise<AccountRecord | null> {
    return toRecord(await this.model.findOne({ usernameKey: username.toLowerCase() }).lean());
  }

  /** Inserts; a duplicate name or email throws mongo's duplicate-key error (code 11000). */
  async create(input: NewAccount): Promise<AccountRecord> {
    const doc = await this.model.create({ ...input, usernameKey: input.username.toLowerCase() });
    return toRecord(doc.toObject())!;
  }

  async setRole(id: string, role: Role): Promise<void> {
    await this.model.updateOne({ _id: id }, { $set: { role } });
  }

  /**
   * Sets the role only if the account still has `expected` (compare and set, one write), so a
   * concurrent change cannot slip through; answers whether it did.
   */
  async changeRole(id: string, expected: Role, role: Role, by?: string): Promise<boolean> {
    if (!isValidObjectId(id)) return false;
    // Who gave a staff role is kept in the same write, so no credit can slip in between.
    const result = await this.model.updateOne(
      { _id: id, role: expected },
      role !== 'user' && by ? { $set: { role }, $addToSet: { promotedBy: by } } : { $set: { role } },
    );
    return result.matchedCount === 1;
  }

  /** The ids of the accounts `id` promoted to staff and of the admins who promoted `id`. */
  async promotionLinksOf(id: string): Promise<string[]> {
    if (!isValidObjectId(id)) return [];
    const [self, promoted] = await Promise.all([
      this.model.findById(id).select({ promotedBy: 1 }).lean(),
      this.model.find({ promotedBy: id }).select({ _id: 1 }).lean(),
    ]);
    return [...(self?.promotedBy ?? []), ...promoted.map((row) => String(row._id))];
  }

  /** The current balance (billing's AccountBalances is the only writer of it). */
  async balanceOf(id: string): Promise<{ balance: number }> {
    if (!isValidObjectId(id)) return { balance: 0 };
    const account = await this.model.findById(id).select({ balance: 1 }).lean();
    return { balance: account?.balance ?? 0 };
  }

  async setStripeCustomer(id: string, customerId: string): Promise<void> {
    await this.model.updateOne(
      { _id: id, stripeCustomerId: { $exists: false } },
      { $set: { stripeCustomerId: customerId } },
    );
  }

  /** Accounts whose name starts with `prefix` (case-insensitive), by name. */
  async searchByName(prefix: string, limit: number): Promise<(AccountRecord & { createdAt?: Date })[]> {
    const escaped = prefix.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const rows = await this.model
      .find({ usernameKey: { $regex: `^${escaped}` } })
      .sort({ usernameKey: 1 })
      .limit(limit)
      .lean();
    return rows.map((row) => ({ ...toRecord(row)!, createdAt: row.createdAt }));
  }

  async setBadges(id: string, badges: { verified?: boolean; early?: boolean }): Promise<void> {
    const set = Object.fromEntries(Object.entries(badges).filter(([, v]) => typeof v === 'boolean'));
    if (Object.keys(set).length > 0) await this.model.updateOne({ _id: id }, { $set: set });
  }

  async setVerified(id: string): Promise<void> {
    await this.model.updateOne({ _id: id }, { $set: { verified: true } });
  }

  /** Swaps the hash only if it is still `current` (a password change in between wins). */
  async replacePasswordHash(id: string, current: string, next: string): Promise<boolean> {
    const result = await this.model.updateOne(
      { _id: id, passwordHash: current },
      { $set: { passwordHash: next } },
    );
    return result.matchedCount === 1;
  }

  /**
   * A new password, swapped in only if the hash is still `current`, with the credentials version
   * raised in the same update; returns the new version, or null when another change won.
   */
  async setNewPasswordHash(id: string, current: string, next: string): Promise<number | null> {
    const updated = await this.model
      .findOneAndUpdate(
        { _id: id, passwordHash: current },
        { $set: { passwordHash: next }, $inc: { credentialsVersion: 1 } },
        { new: true },
      )
      .lean();
    return updated ? (updated.credentialsVersion ?? 0) : null;
  }

  /** Suspends the account unless it is already (one write): answers whether this call did. */
  async suspend(id: string, suspension: AccountSuspension): Promise<boolean> {
    if (!isValidObjectId(id)) return false;
    const result = await this.model.updateOne(
      { _id: id, suspension: { $exists: false } },
      { $set: { suspension } },
    );
    return result.modifiedCount === 1;
  }

  /** Lifts the suspension if there is one (one write): answers whether this call did. */
  async liftSuspension(id: string): Promise<boolean> {
    if (!isValidObjectId(id)) return false;
    const result = await this.model.updateOne(
      { _id: id, suspension: { $exists: true } },
      { $unset: { suspension: 1 } },
    );
    return result.modifiedCount === 1;
  }

  async touchLogin(id: string): Promise<void> {
    await this.model.updateOne({ _id: id }, { $set: { lastLoginAt: new Date() } });
  }
}

function toRecord(doc: (Account & { _id: unknown }) | null): AccountRecord | null {
  if (!doc) return null;
  return {
    id: String(doc._id),
    username: doc.username,
    email: doc.email,
    passwordHash: doc.passwordHash,
    role: doc.role,
    verified: doc.verified,
    early: doc.early,
    emailVerified: doc.emailVerified ?? false,
    credentialsVersion: doc.credentialsVersion ?? 0,
    createdAt: doc.createdAt,
    stripeCustomerId: doc.stripeCustomerId,
    balance: doc.balance ?? 0,
    seededAdmin: doc.seededAdmin,
    suspended: Boolean(doc.suspension),
    ...(doc.suspension ? { suspension: doc.suspension } : {}),
  };
}

export function isDuplicateKeyError(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: number }).code === 11000;
}
