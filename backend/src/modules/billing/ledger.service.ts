import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model, Types } from 'mongoose';
import {
  DomainEvents,
  HISTORY_PAGE_SIZE,
  type CreditHistoryEntry,
  type LedgerKind,
  type Page,
} from '@studio/contracts';
import { AccountsRepository, isDuplicateKeyError } from '../accounts/accounts.repository';
import { DomainEventBus } from '../events/domain-event-bus';
import { LedgerActor, LedgerEntry } from './ledger-entry.schema';
import { JobLiveness } from './job-liveness';

export type LedgerEntryDoc = LedgerEntry & { _id: Types.ObjectId };

export interface LedgerChange {
  /** Idempotency key: the same key always means the same change, applied at most once. */
  key: string;
  userId: string;
  username: string;
  kind: LedgerKind;
  amount: number;
  reason: string;
  actor?: LedgerActor;
  jobId?: string;
  tool?: string;
  reservationKey?: string;
  expiresAt?: Date;
}

export type LedgerOutcome =
  | { ok: true; entry: LedgerEntryDoc; balance: number }
  | { ok: false; entry: LedgerEntryDoc; reason: 'insufficient_funds' | 'no_account' };

/** How long a reservation is held before recovery asks whether its job still lives. */
export const RESERVATION_HOLD_MS = 15 * 60_000;
/** A ledger step older than this that has not finished is treated as interrupted. */
export const STALE_STEP_MS = 30_000;
const RECOVERY_EVERY_MS = 60_000;

/**
 * The credits ledger. Works on FerretDB and standalone MongoDB: no multi-document transactions,
 * only single-document atomic updates and unique keys, in four steps per change:
 *   1. intent   — insert the entry as 'pending' (unique key: a replay finds the existing one);
 *   2. apply    — $inc the balance and tag the account with the entry id, atomically, refused when
 *                 the tag is already there or a debit would go below zero;
 *   3. finalize — mark the entry 'applied' with the balance after it;
 *   4. untag    — remove the tag, then announce the change (event id = entry id).
 * A crash between any two steps leaves a state the recovery pass completes or undoes.
 */
@Injectable()
export class LedgerService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(LedgerService.name);
  private timer?: NodeJS.Timeout;

  constructor(
    @InjectModel(LedgerEntry.name) private readonly entries: Model<LedgerEntry>,
    private readonly accounts: AccountsRepository,
    private readonly events: DomainEventBus,
    private readonly jobs: JobLiveness,
  ) {}

  // ---- operations -------------------------------------------------------------------------

  /** Atomic check-and-deduct. Fails (ok: false) without changing anything when funds are short. */
  reserve(input: Omit<LedgerChange, 'kind' | 'amount'> & { amount: number; holdMs?: number }) {
    const { holdMs = RESERVATION_HOLD_MS, amount, ...rest } = input;
    return this.change({
      ...rest,
      kind: 'reservation',
      amount: -Math.abs(amount),
      expiresAt: new Date(Date.now() + holdMs),
    });
  }

  /** The job succeeded: its reservation becomes a final spend. False when already settled. */
  async capture(reservationKey: string): Promise<boolean> {
    const reservation = await this.entries
      .findOneAndUpdate(
        { key: reservationKey, kind: 'reservation', state: 'applied', settlement: { $exists: false } },
        { $set: { settlement: 'captured' } },
        { new: true },
      )
      .lean();
    if (!reservation) return false;
    const spent = -reservation.amount;
    await this.change({
      key: `capture:${reservationKey}`,
      userId: String(reservation.userId),
      username: reservation.username,
      kind: 'capture',
      amount: 0,
      reason: reservation.reason,
      jobId: reservation.jobId,
      tool: reservation.tool,
      reservationKey,
    });
    await this.events.publish(
      DomainEvents.creditsCaptured,
      {
        userId: String(reservation.userId),
        username: reservation.username,
        amount: spent,
        tool: reservation.tool,
        jobId: reservation.jobId,
        entryId: String(reservation._id),
      },
      `captured:${reservation._id}`,
    );
    return true;
  }

  /**
   * The job failed or was abandoned: the reservation's credits go back, once. A reservation that
   * never reached the balance is voided instead. Returns the credits given back.
   */
  async refund(reservationKey: string, reason: string): Promise<number> {
    const reservation = await this.entries.findOne({ key: reservationKey, kind: 'reservation' }).lean();
    if (!reservation) return 0;
    if (reservation.state === 'pending') {
      await this.voidIfUnapplied(reservation);
      return 0;
    }
    if (reservation.state !== 'applied') return 0;
    const marked = await this.entries.updateOne(
      { _id: reservation._id, settlement: { $exists: false } },
      { $set: { settlement: 'refunded' } },
    );
    if (marked.modifiedCount === 0 && reservation.settlement !== 'refunded') return 0; // captured
    const outcome = await this.change({
      key: `refund:${reservationKey}`,
      userId: String(reservation.userId),
      username: reservation.username,
      kind: 'refund',
      amount: -reservation.amount,
      reason,
      jobId: reservation.jobId,
      tool: reservation.tool,
      reservationKey,
    });
    return outcome.ok && marked.modifiedCount === 1 ? outcome.entry.amount : 0;
  }

  /** Purchases, reimbursements, grants and adjustments: one idempotent change. */
  credit(input: LedgerChange): Promise<LedgerOutcome> {
    return this.change(input);
  }

  async history(userId: string, page = 1, pageSize: number = HISTORY_PAGE_SIZE.default): Promise<Page<CreditHistoryEntry>> {
    const size = Math.min(Math.max(1, pageSize), HISTORY_PAGE_SIZE.max);
    const filter = { userId: new Types.ObjectId(userId), state: 'applied' };
    const [rows, total] = await Promise.all([
      this.entries
        .find(filter)
        .sort({ createdAt: -1, _id: -1 })
        .skip((Math.max(1, page) - 1) * size)
        .limit(size)
        .lean(),
      this.entries.countDocuments(filter),
    ]);
    return { items: rows.map(toHistoryEntry), total, page: Math.max(1, page), pageSize: size };
  }

  /** Sum of the applied entries of one user: equals the balance whenever nothing is in flight. */
  async appliedSum(userId: string): Promise<number> {
    const [row] = await this.entries.aggregate<{ total: number }>([
      { $match: { userId: new Types.ObjectId(userId), state: 'applied' } },
      { $group: { _id: null, total: { $sum: '$amount' } } },
    ]);
    return row?.total ?? 0;
  }

  // ---- the four steps ---------------------------------------------------------------------

  private async change(input: LedgerChange): Promise<LedgerOutcome> {
    const entry = await this.recordIntent(input);
    if (entry.state === 'applied') return { ok: true, entry, balance: entry.balanceAfter ?? 0 };
    if (entry.state === 'rejected') return { ok: false, entry, reason: 'insufficient_funds' };
    return this.complete(entry);
  }

  /** Step 1. */
  async recordIntent(input: LedgerChange): Promise<LedgerEntryDoc> {
    try {
      const created = await this.entries.create({
        ...input,
        userId: new Types.ObjectId(input.userId),
        state: 'pending',
        createdAt: new Date(),
      });
      return created.toObject() as LedgerEntryDoc;
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      const existing = await this.entries.findOne({ key: input.key }).lean();
      if (!existing) throw err;
      return existing as LedgerEntryDoc;
    }
  }

  /** Steps 2 to 4, for an entry in 'pending'. Safe to run again after a crash. */
  async complete(entry: LedgerEntryDoc): Promise<LedgerOutcome> {
    const entryId = String(entry._id);
    const userId = String(entry.userId);
    let balance = await this.accounts.applyLedgerDelta(userId, entryId, entry.amount);
    if (balance === null) {
      const state = await this.accounts.ledgerState(userId);
      if (!state) return this.reject(entry, 'no_account');
      if (!state.pendingLedger.includes(entryId)) {
        // Not applied before, and refused now: only a debit beyond the balance is refused.
        return this.reject(entry, 'insufficient_funds');
      }
      balance = state.balance; // applied before a crash; finish the remaining steps
    }
    return this.finalize(entry, balance);
  }

  /** Steps 3 and 4. */
  private async finalize(entry: LedgerEntryDoc, balance: number): Promise<LedgerOutcome> {
    const entryId = String(entry._id);
    await this.entries.updateOne(
      { _id: entry._id, state: 'pending' },
      { $set: { state: 'applied', appliedAt: new Date(), balanceAfter: balance } },
    );
    await this.accounts.untagLedgerEntry(String(entry.userId), entryId);
    const applied = { ...entry, state: 'applied' as const, balanceAfter: entry.balanceAfter ?? balance };
    await this.announce(applied);
    return { ok: true, entry: applied, balance: applied.balanceAfter };
  }

  private async reject(entry: LedgerEntryDoc, reason: 'insufficient_funds' | 'no_account'): Promise<LedgerOutcome> {
    await this.entries.updateOne({ _id: entry._id, state: 'pending' }, { $set: { state: 'rejected' } });
    return { ok: false, entry: { ...entry, state: 'rejected' }, reason };
  }

  private async announce(entry: LedgerEntryDoc): Promise<void> {
    if (entry.amount !== 0) {
      await this.events.publish(
        DomainEvents.balanceChanged,
        {
          userId: String(entry.userId),
          username: entry.username,
          balance: entry.balanceAfter ?? 0,
          delta: entry.amount,
          reason: entry.reason,
          kind: entry.kind,
          entryId: String(entry._id),
          actor: entry.actor,
          tool: entry.tool,
          jobId: entry.jobId,
        },
        `ledger:${entry._id}`,
      );
    }
    await this.entries.updateOne({ _id: entry._id }, { $set: { announced: true } });
  }

  /** A pending reservation nobody will finish: void it, unless its deduction did land. */
  private async voidIfUnapplied(entry: LedgerEntryDoc): Promise<void> {
    const state = await this.accounts.ledgerState(String(entry.userId));
    if (state?.pendingLedger.includes(String(entry._id))) {
      await this.finalize(entry, state.balance);
    } else {
      await this.reject(entry, 'insufficient_funds');
    }
  }

  // ---- recovery ---------------------------------------------------------------------------

  /**
   * Completes or undoes whatever a crash interrupted. Runs at boot and every minute, on every
   * instance; every step is idempotent, so instances running it together do no harm.
   */
  async recover(staleMs = STALE_STEP_MS): Promise<{ completed: number; voided: number; refunded: number; announced: number }> {
    const cutoff = new Date(Date.now() - staleMs);
    const stats = { completed: 0, voided: 0, refunded: 0, announced: 0 };

    // Interrupted after step 1 or 2: finish it — except a reservation whose request died before
    // deducting, which nobody is waiting for: void it.
    const pending = await this.entries.find({ state: 'pending', createdAt: { $lte: cutoff } }).limit(1000).lean();
    for (const entry of pending as LedgerEntryDoc[]) {
      if (entry.kind === 'reservation') {
        await this.voidIfUnapplied(entry);
        stats.voided += 1;
      } else {
        await this.complete(entry);
        stats.completed += 1;
      }
    }

    // Interrupted after step 3: the tag is still on the account.
    for (const account of await this.accounts.withPendingLedger()) {
      const ids = account.pendingLedger.filter((id) => Types.ObjectId.isValid(id)).map((id) => new Types.ObjectId(id));
      const settled = await this.entries.find({ _id: { $in: ids }, state: { $ne: 'pending' } }).select({ _id: 1 }).lean();
      for (const row of settled) await this.accounts.untagLedgerEntry(account.id, String(row._id));
    }

    // Interrupted between marking a reservation refunded and applying the refund.
    const refunding = await this.entries
      .find({ kind: 'reservation', state: 'applied', settlement: 'refunded' })
      .select({ key: 1 })
      .lean();
    for (const row of refunding) {
      const refund = await this.entries.findOne({ key: `refund:${row.key}` }).select({ state: 1 }).lean();
      if (!refund || refund.state === 'pending') {
        await this.refund(row.key, 'Refund completed by recovery');
        stats.refunded += 1;
      }
    }

    // Reservations past their hold whose job is gone (killed between deduction and job record).
    const expired = await this.entries
      .find({ kind: 'reservation', state: 'applied', settlement: { $exists: false }, expiresAt: { $lte: new Date() } })
      .limit(1000)
      .lean();
    for (const row of expired) {
      if (row.jobId && (await this.jobs.isAlive(row.jobId))) {
        await this.entries.updateOne({ _id: row._id }, { $set: { expiresAt: new Date(Date.now() + RESERVATION_HOLD_MS) } });
      } else if ((await this.refund(row.key, 'Credits returned: the job did not run')) > 0) {
        stats.refunded += 1;
      }
    }

    // Interrupted after step 4 but before the announcement.
    const silent = await this.entries.find({ state: 'applied', announced: false, appliedAt: { $lte: cutoff } }).limit(1000).lean();
    for (const entry of silent as LedgerEntryDoc[]) {
      await this.announce(entry);
      stats.announced += 1;
    }
    return stats;
  }

  async onApplicationBootstrap(): Promise<void> {
    const run = () =>
      this.recover()
        .then((s) => {
          if (s.completed + s.voided + s.refunded + s.announced > 0) this.logger.log(`ledger recovery: ${JSON.stringify(s)}`);
        })
        .catch((err) => this.logger.error(`ledger recovery failed: ${(err as Error).message}`));
    void run();
    this.timer = setInterval(run, RECOVERY_EVERY_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }
}

function toHistoryEntry(row: LedgerEntry & { _id: Types.ObjectId }): CreditHistoryEntry {
  const entry: CreditHistoryEntry = {
    _id: String(row._id),
    kind: row.kind,
    amount: row.amount,
    reason: row.reason,
    createdAt: new Date(row.createdAt).toISOString(),
  };
  if (row.balanceAfter !== undefined) entry.balanceAfter = row.balanceAfter;
  if (row.jobId) entry.jobId = row.jobId;
  if (row.tool) entry.tool = row.tool;
  if (row.actor) entry.by = row.actor.username;
  return entry;
}
