import { Injectable, Logger } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { isValidObjectId, Model, Types } from 'mongoose';
import { Account } from '../accounts';
import { LedgerEntry } from './ledger-entry.schema';

/** What the account says about one ledger entry. */
export type EntryOnAccount = 'applied' | 'voided' | 'undecided' | 'no_account';

export type BalanceChange =
  | { status: 'applied'; balance: number; version: number }
  | { status: 'already'; balance: number }
  | { status: 'voided' | 'insufficient' | 'no_account' };

/**
 * Keys kept on the account at least (more while their entries are still pending). A trimmed key is
 * final in the ledger, but a request that stalled between writing its entry and applying it (past
 * STALE_STEP_MS, so recovery voided it) is stopped only by its `!key` here: this many later changes
 * of the account are its margin. Every change reads and writes the list, so it is not unbounded.
 */
export const KEEP_RECENT = 100;
/** The list is trimmed every this many changes of one account. */
export const TRIM_EVERY = 100;

const voidMark = (key: string) => `!${key}`;

/**
 * The money fields of the account document (`balance`, `ledgerVersion`, `ledgerRecent`); nothing
 * else writes them. Every change is ONE conditional atomic update of the account, which is what
 * makes the ledger exactly-once without multi-document transactions, on MongoDB and on the
 * embedded engine alike:
 *
 *   { _id, balance: { $gte: cost }, ledgerRecent: { $nin: [key, '!' + key] } }
 *     → { $inc: { balance: delta, ledgerVersion: 1 }, $push: { ledgerRecent: key } }
 *
 * The balance guard means no debit can overdraw; the key guard means no entry applies twice, and
 * a void (`!key`, pushed by the same kind of guarded update) means it never applies at all. So the
 * account itself records which entries it took: recovery reads that state and never guesses from
 * elapsed time. The list is trimmed, but a key leaves it only once its ledger entry is final
 * ('applied' or 'rejected'), after which nobody tries to apply it again.
 */
@Injectable()
export class AccountBalances {
  private readonly logger = new Logger(AccountBalances.name);

  constructor(
    @InjectModel(Account.name) private readonly accounts: Model<Account>,
    @InjectModel(LedgerEntry.name) private readonly entries: Model<LedgerEntry>,
  ) {}

  async balanceOf(userId: string): Promise<number | null> {
    if (!isValidObjectId(userId)) return null;
    const row = await this.accounts.findById(userId).select({ balance: 1 }).lean();
    return row ? (row.balance ?? 0) : null;
  }

  /** Applies the entry `key` (delta credits) once; a debit beyond the balance is refused. */
  async apply(userId: string, key: string, delta: number): Promise<BalanceChange> {
    if (!isValidObjectId(userId)) return { status: 'no_account' };
    const row = await this.accounts
      .findOneAndUpdate(
        {
          _id: new Types.ObjectId(userId),
          balance: delta < 0 ? { $gte: -delta } : { $exists: true },
          ledgerRecent: { $nin: [key, voidMark(key)] },
        },
        { $inc: { balance: delta, ledgerVersion: 1 }, $push: { ledgerRecent: key } },
        { new: true, timestamps: false },
      )
      .lean();
    if (row) {
      this.trimAt(userId, row.ledgerVersion);
      return { status: 'applied', balance: row.balance, version: row.ledgerVersion };
    }
    // Not applied by this call: the account says why.
    const state = await this.stateOf(userId, key);
    if (state.on === 'applied') return { status: 'already', balance: state.balance };
    if (state.on === 'voided' || state.on === 'no_account') return { status: state.on };
    if (delta < 0) return { status: 'insufficient' };
    throw new Error(`balance of account ${userId} cannot take entry ${key} (not migrated?)`);
  }

  /**
   * Makes sure the entry `key` never applies (a reservation nobody will finish). Returns what the
   * account says afterwards: 'voided', or 'applied' when the change landed first.
   */
  async void(userId: string, key: string): Promise<EntryOnAccount> {
    if (!isValidObjectId(userId)) return 'no_account';
    const row = await this.accounts
      .findOneAndUpdate(
        { _id: new Types.ObjectId(userId), ledgerRecent: { $nin: [key, voidMark(key)] } },
        { $inc: { ledgerVersion: 1 }, $push: { ledgerRecent: voidMark(key) } },
        { new: true, timestamps: false },
      )
      .lean();
    if (row) {
      // A void is a change of the list like any other: it counts towards the next trim.
      this.trimAt(userId, row.ledgerVersion);
      return 'voided';
    }
    return (await this.stateOf(userId, key)).on;
  }

  /** Every change (applied or voided) bumps ledgerVersion once: one trim per TRIM_EVERY of them. */
  private trimAt(userId: string, version: number): void {
    if (version % TRIM_EVERY === 0) void this.trim(userId);
  }

  /** Whether the account took the entry, refused it for good (voided), or has not decided yet. */
  async stateOf(userId: string, key: string): Promise<{ on: EntryOnAccount; balance: number }> {
    const row = isValidObjectId(userId)
      ? await this.accounts.findById(userId).select({ balance: 1, ledgerRecent: 1 }).lean()
      : null;
    if (!row) return { on: 'no_account', balance: 0 };
    const recent = row.ledgerRecent ?? [];
    const on = recent.includes(key) ? 'applied' : recent.includes(voidMark(key)) ? 'voided' : 'undecided';
    return { on, balance: row.balance ?? 0 };
  }

  /**
   * Drops the oldest keys from the account, keeping the latest KEEP_RECENT and every key whose
   * entry is still pending. `$pullAll` removes only the named keys, so changes landing meanwhile
   * are not disturbed.
   */
  async trim(userId: string): Promise<void> {
    try {
      const row = await this.accounts.findById(userId).select({ ledgerRecent: 1 }).lean();
      const recent = row?.ledgerRecent ?? [];
      const old = recent.slice(0, Math.max(0, recent.length - KEEP_RECENT));
      if (old.length === 0) return;
      const keyOf = (mark: string) => (mark.startsWith('!') ? mark.slice(1) : mark);
      const pending = await this.entries
        .find({ _id: { $in: old.map(keyOf) }, state: 'pending' })
        .select({ _id: 1 })
        .lean();
      const stillPending = new Set(pending.map((p) => String(p._id)));
      const drop = old.filter((mark) => !stillPending.has(keyOf(mark)));
      if (drop.length > 0) {
        await this.accounts.updateOne(
          { _id: new Types.ObjectId(userId) },
          { $pullAll: { ledgerRecent: drop } },
          { timestamps: false },
        );
      }
    } catch (err) {
      this.logger.warn(`trimming the ledger keys of ${userId} failed: ${(err as Error).message}`);
    }
  }

  /**
   * Boot-time migration from the balance-version chains (`balance_versions`) of earlier releases:
   * an account without a `balance` field gets the balance of its newest version, and the entry
   * ids of its latest versions as its recent keys (so an entry applied there is not applied
   * again). Pending entries that a version applied are marked applied first. Idempotent: only
   * accounts without the field are touched, by a conditional update. Run with the old release
   * stopped (it wrote the chains).
   */
  async migrateFromVersionChains(): Promise<number> {
    const missing = await this.accounts
      .find({ balance: { $exists: false } })
      .select({ _id: 1 })
      .lean();
    if (missing.length === 0) return 0;
    const versions = this.accounts.db.collection<{
      accountId: Types.ObjectId;
      version: number;
      balance: number;
      entryId: string;
    }>('balance_versions');
    let migrated = 0;
    for (const { _id } of missing) {
      const chain = await versions
        .find({ accountId: _id })
        .sort({ version: -1 })
        .limit(KEEP_RECENT)
        .toArray();
      for (const version of chain) {
        await this.entries.updateOne(
          { _id: version.entryId, state: 'pending' },
          { $set: { state: 'applied', appliedAt: new Date(), balanceAfter: version.balance } },
        );
      }
      const result = await this.accounts.updateOne(
        { _id, balance: { $exists: false } },
        {
          $set: {
            balance: chain[0]?.balance ?? 0,
            ledgerVersion: chain[0]?.version ?? 0,
            ledgerRecent: chain.map((v) => v.entryId).reverse(),
          },
        },
        { timestamps: false },
      );
      migrated += result.modifiedCount;
    }
    this.logger.log(`seeded the balance of ${migrated} account(s) from their version chains`);
    return migrated;
  }
}
