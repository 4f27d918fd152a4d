import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { isValidObjectId, Model, Types } from 'mongoose';
import type { Role } from '@studio/contracts';
import { Account } from './account.schema';
import { BalanceVersion } from './balance-version.schema';

export interface AccountRecord {
  id: string;
  username: string;
  email: string;
  passwordHash: string;
  role: Role;
  verified: boolean;
  early: boolean;
  stripeCustomerId?: string;
  /** Created by the boot-time seeding of ADMIN_USERNAME (not self-registered). */
  seededAdmin?: boolean;
}

export type BalanceChange =
  { status: 'applied' | 'already' | 'insufficient'; balance: number } | { status: 'no_account' };

export interface NewAccount {
  username: string;
  email: string;
  passwordHash: string;
  role: Role;
  adultConfirmedAt: Date;
  seededAdmin?: boolean;
}

/** Storage of accounts behind a small port, so services never build queries themselves. */
@Injectable()
export class AccountsRepository {
  constructor(
    @InjectModel(Account.name) private readonly model: Model<Account>,
    @InjectModel(BalanceVersion.name) private readonly versions: Model<BalanceVersion>,
  ) {}

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
   * Sets the role only if the account still has `expected` (compare and set, one write), so a
   * concurrent change cannot slip through; answers whether it did.
   */
  async changeRole(id: string, expected: Role, role: Role): Promise<boolean> {
    if (!isValidObjectId(id)) return false;
    const result = await this.model.updateOne({ _id: id, role: expected }, { $set: { role } });
    return result.matchedCount === 1;
  }

  /** The current balance: the newest version (0 before the first change). */
  async balanceOf(id: string): Promise<{ version: number; balance: number }> {
    return (await this.headOf(id)) ?? { version: 0, balance: 0 };
  }

  /** The newest balance version, or null when there is no such account. */
  private async headOf(id: string): Promise<{ version: number; balance: number } | null> {
    if (!isValidObjectId(id)) return null;
    const account = await this.model.findById(id).select({ balanceHead: 1 }).lean();
    if (!account) return null;
    let version = account.balanceHead ?? 0;
    let head = version > 0 ? await this.versions.findById(versionId(id, version)).lean() : null;
    // The hint may lag behind (it is written after the version): walk forward to the real head.
    for (;;) {
      const next = await this.versions.findById(versionId(id, version + 1)).lean();
      if (!next) break;
      head = next;
      version += 1;
    }
    return { version, balance: head?.balance ?? 0 };
  }

  /** The balance version that applied a ledger entry, if it was applied. */
  async versionOfEntry(entryId: string): Promise<{ balance: number } | null> {
    const row = await this.versions.findOne({ entryId }).lean();
    return row ? { balance: row.balance } : null;
  }

  /**
   * Applies delta as the next balance version (compare-and-set on the unique version _id).
   * A debit beyond the balance is refused; an entry already applied is reported, not repeated.
   * `fresh` says the entry was just recorded, so it cannot have been applied before: that spares
   * a lookup by entryId, which FerretDB can only answer by scanning.
   */
  async applyBalanceChange(
    id: string,
    entryId: string,
    delta: number,
    fresh = false,
  ): Promise<BalanceChange> {
    for (let attempt = 0; ; attempt += 1) {
      const head = await this.headOf(id);
      if (!head) return { status: 'no_account' };
      if (delta < 0 && head.balance < -delta) {
        const applied = fresh ? null : await this.versionOfEntry(entryId);
        return applied
          ? { status: 'already', ...applied }
          : { status: 'insufficient', balance: head.balance };
      }
      const version = head.version + 1;
      try {
        await this.versions.create({
          _id: versionId(id, version),
          accountId: new Types.ObjectId(id),
          version,
          balance: head.balance + delta,
          entryId,
        });
        await this.model.updateOne({ _id: id }, { $max: { balanceHead: version } });
        return { status: 'applied', balance: head.balance + delta };
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
        // Either another change took this version, or this entry was applied before.
        const taken = await this.versions.findById(versionId(id, version)).lean();
        if (taken?.entryId === entryId) return { status: 'already', balance: taken.balance };
        if (!taken || !fresh) {
          const applied = await this.versionOfEntry(entryId);
          if (applied) return { status: 'already', ...applied };
        }
        await new Promise((r) => setTimeout(r, Math.random() * Math.min(50, 2 ** attempt)));
      }
    }
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
  async replacePasswordHash(id: string, current: string, next: string): Promise<void> {
    await this.model.updateOne({ _id: id, passwordHash: current }, { $set: { passwordHash: next } });
  }

  async touchLogin(id: string): Promise<void> {
    await this.model.updateOne({ _id: id }, { $set: { lastLoginAt: new Date() } });
  }
}

const versionId = (accountId: string, version: number) => `${accountId}:${version}`;

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
    stripeCustomerId: doc.stripeCustomerId,
    seededAdmin: doc.seededAdmin,
  };
}

export function isDuplicateKeyError(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: number }).code === 11000;
}
