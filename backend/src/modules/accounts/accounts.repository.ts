import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { isValidObjectId, Model } from 'mongoose';
import type { Role } from '@studio/contracts';
import { Account } from './account.schema';

export interface AccountRecord {
  id: string;
  username: string;
  email: string;
  passwordHash: string;
  role: Role;
  verified: boolean;
  early: boolean;
  balance: number;
  stripeCustomerId?: string;
}

export interface NewAccount {
  username: string;
  email: string;
  passwordHash: string;
  role: Role;
  adultConfirmedAt: Date;
}

/** Storage of accounts behind a small port, so services never build queries themselves. */
@Injectable()
export class AccountsRepository {
  constructor(@InjectModel(Account.name) private readonly model: Model<Account>) {}

  async findById(id: string): Promise<AccountRecord | null> {
    if (!isValidObjectId(id)) return null;
    return toRecord(await this.model.findById(id).lean());
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
   * Adds delta to the balance and tags the account with the ledger entry, in one atomic update.
   * Refused (null) when the entry is already applied or a debit would take the balance below zero.
   */
  async applyLedgerDelta(id: string, entryId: string, delta: number): Promise<number | null> {
    if (!isValidObjectId(id)) return null;
    const filter: Record<string, unknown> = { _id: id, pendingLedger: { $ne: entryId } };
    if (delta < 0) filter.balance = { $gte: -delta };
    const updated = await this.model
      .findOneAndUpdate(filter, { $inc: { balance: delta }, $push: { pendingLedger: entryId } }, { new: true })
      .select({ balance: 1 })
      .lean();
    return updated ? updated.balance : null;
  }

  /** The balance and in-flight ledger tags of an account (null when there is no such account). */
  async ledgerState(id: string): Promise<{ balance: number; pendingLedger: string[] } | null> {
    if (!isValidObjectId(id)) return null;
    const row = await this.model.findById(id).select({ balance: 1, pendingLedger: 1 }).lean();
    return row ? { balance: row.balance ?? 0, pendingLedger: row.pendingLedger ?? [] } : null;
  }

  async untagLedgerEntry(id: string, entryId: string): Promise<void> {
    await this.model.updateOne({ _id: id }, { $pull: { pendingLedger: entryId } });
  }

  /** Accounts with ledger steps in flight (for the recovery pass). */
  async withPendingLedger(limit = 500): Promise<Array<{ id: string; pendingLedger: string[] }>> {
    const rows = await this.model
      .find({ 'pendingLedger.0': { $exists: true } })
      .select({ pendingLedger: 1 })
      .limit(limit)
      .lean();
    return rows.map((r) => ({ id: String(r._id), pendingLedger: r.pendingLedger }));
  }

  async findManyByIds(ids: string[]): Promise<AccountRecord[]> {
    const rows = await this.model.find({ _id: { $in: ids.filter((id) => isValidObjectId(id)) } }).lean();
    return rows.map((r) => toRecord(r)!);
  }

  async setStripeCustomer(id: string, customerId: string): Promise<void> {
    await this.model.updateOne({ _id: id, stripeCustomerId: { $exists: false } }, { $set: { stripeCustomerId: customerId } });
  }

  async setVerified(id: string): Promise<void> {
    await this.model.updateOne({ _id: id }, { $set: { verified: true } });
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
    balance: doc.balance ?? 0,
    stripeCustomerId: doc.stripeCustomerId,
  };
}

export function isDuplicateKeyError(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: number }).code === 11000;
}
