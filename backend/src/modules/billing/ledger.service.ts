import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model, Types } from 'mongoose';
import {
  DomainEvents,
  HISTORY_PAGE_SIZE,
  type CreditHistoryEntry,
  type LedgerKind,
  type Page,
  type PricedTool,
  quoteTool,
} from '@studio/contracts';
import { AccountsRepository, isDuplicateKeyError } from '../accounts/accounts.repository';
import { DomainEventBus } from '../events/domain-event-bus';
import { LedgerActor, LedgerEntry } from './ledger-entry.schema';
import { JobLiveness } from './job-liveness';
import { KeyedSerializer } from './keyed-serializer';
import { randomUUID } from 'node:crypto';

export type LedgerEntryDoc = LedgerEntry;

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
  | { ok: false; reason: 'insufficient_funds' | 'no_account' };

/** How long a reservation is held before recovery asks whether its job still lives. */
export const RESERVATION_HOLD_MS = 15 * 60_000;
/** A ledger step older than this that has not finished is treated as interrupted. */
export const STALE_STEP_MS = 30_000;
const RECOVERY_EVERY_MS = 60_000;

/**
 * The credits ledger. Works on FerretDB and standalone MongoDB: no multi-document transactions,
 * only unique keys (see BalanceVersion for why not `$inc`), in three steps per change:
 *   1. intent   — insert the entry as 'pending' (unique key: a replay finds the existing one);
 *   2. apply    — insert the next balance version naming the entry (unique: applied at most once;
 *                 a debit beyond the balance is refused);
 *   3. finalize — mark the entry 'applied' with the balance after it, then announce the change
 *                 (the event id is derived from the entry, so announcing twice is a no-op).
 * Settling a reservation (capture or refund) inserts one entry under the key `settle:<reservation>`,
 * so only one of the two can ever happen. A crash between any two steps leaves a state that the
 * recovery pass completes or undoes.
 */
@Injectable()
export class LedgerService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(LedgerService.name);
  private readonly perAccount = new KeyedSerializer();
  private timer?: NodeJS.Timeout;

  constructor(
    @InjectModel(LedgerEntry.name) private readonly entries: Model<LedgerEntry>,
    private readonly accounts: AccountsRepository,
    private readonly events: DomainEventBus,
    private readonly jobs: JobLiveness,
  ) {}

  // ---- operations -------------------------------------------------------------------------

  /** The price of a request (one table in libs/contracts), asked before reserving. */
  quote(tool: PricedTool, units: number): number {
    return quoteTool(tool, units);
  }

  /** Atomic check-and-deduct. Fails (ok: false) without changing anything when funds are short. */
  async reserve(
    input: Omit<LedgerChange, 'kind' | 'amount'> & { amount: number; holdMs?: number },
  ): Promise<LedgerOutcome> {
    const { holdMs = RESERVATION_HOLD_MS, amount, ...rest } = input;
    // Fast refusal without a write when the balance is plainly short (the apply step decides
    // for real; this only spares the database when a burst meets an empty balance).
    const known = await this.entries.exists({ _id: input.key });
    if (!known && (await this.accounts.balanceOf(input.userId)).balance < Math.abs(amount)) {
      return { ok: false, reason: 'insufficient_funds' };
    }
    return this.change({
      ...rest,
      kind: 'reservation',
      amount: -Math.abs(amount),
      expiresAt: new Date(Date.now() + holdMs),
    });
  }

  /** The job succeeded: its reservation becomes a final spend. False when already settled. */
  async capture(reservationKey: string): Promise<boolean> {
    const reservation = await this.appliedReservation(reservationKey);
    if (!reservation) return false;
    const claim = randomUUID();
    const entry = await this.recordIntent(
      { ...settlementOf(reservation), kind: 'capture', amount: 0, reason: reservation.reason },
      claim,
    );
    if (entry.createdBy !== claim) return false; // already settled (captured or refunded)
    if (!(await this.complete(entry, true)).ok) return false;
    await this.afterCapture(reservation);
    return true;
  }

  /** Marks the reservation captured and announces the spend (idempotent; recovery repeats it). */
  private async afterCapture(reservation: LedgerEntryDoc): Promise<void> {
    await this.entries.updateOne({ _id: reservation._id }, { $set: { settlement: 'captured' } });
    await this.events.publish(
      DomainEvents.creditsCaptured,
      {
        userId: String(reservation.userId),
        username: reservation.username,
        amount: -reservation.amount,
        tool: reservation.tool,
        jobId: reservation.jobId,
        entryId: String(reservation._id),
      },
      `captured:${reservation._id}`,
    );
  }

  /**
   * The job failed or was abandoned: the reservation's credits go back, once. A reservation that
   * never reached the balance is voided instead. Returns the credits given back by this call.
   */
  async refund(reservationKey: string, reason: string): Promise<number> {
    const reservation = await this.entries.findById(reservationKey).lean();
    if (reservation?.kind !== 'reservation') return 0;
    if (reservation.state === 'pending') {
      await this.voidIfUnapplied(reservation as LedgerEntryDoc);
      return this.refund(reservationKey, reason);
    }
    if (reservation.state !== 'applied') return 0;
    const existing = await this.entries.findById(settleKey(reservationKey)).lean();
    if (existing) {
      // Settled already; finish it if a crash interrupted the refund.
      if (existing.kind === 'refund' && existing.state === 'pending')
        await this.complete(existing as LedgerEntryDoc);
      return 0;
    }
    const claim = randomUUID();
    const entry = await this.recordIntent(
      { ...settlementOf(reservation as LedgerEntryDoc), kind: 'refund', amount: -reservation.amount, reason },
      claim,
    );
    if (entry.createdBy !== claim) return 0; // another call settled it first
    const outcome = await this.complete(entry, true);
    if (!outcome.ok) return 0;
    await this.entries.updateOne({ _id: reservation._id }, { $set: { settlement: 'refunded' } });
    return entry.amount;
  }

  /** Purchases, reimbursements, grants and adjustments: one idempotent change. */
  credit(input: LedgerChange): Promise<LedgerOutcome> {
    return this.change(input);
  }

  /** The applied entry of one user under an idempotency key (a purchase, say), or null. */
  async appliedEntry(userId: string, key: string): Promise<CreditHistoryEntry | null> {
    const row = await this.entries
      .findOne({ _id: key, userId: new Types.ObjectId(userId), state: 'applied' })
      .lean();
    return row ? toHistoryEntry(row) : null;
  }

  async history(
    userId: string,
    page = 1,
    pageSize: number = HISTORY_PAGE_SIZE.default,
  ): Promise<Page<CreditHistoryEntry>> {
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
    const claim = randomUUID();
    const entry = await this.recordIntent(input, claim);
    if (entry.state === 'applied') return { ok: true, entry, balance: entry.balanceAfter ?? 0 };
    if (entry.state === 'rejected') return { ok: false, reason: 'insufficient_funds' };
    return this.complete(entry, entry.createdBy === claim);
  }

  /**
   * Step 1. Returns the existing entry when the key was used before; `claim` (stored as createdBy)
   * tells the caller whether its own insert won.
   */
  async recordIntent(input: LedgerChange, claim: string = randomUUID()): Promise<LedgerEntryDoc> {
    const { key, ...fields } = input;
    try {
      const created = await this.entries.create({
        ...fields,
        _id: key,
        userId: new Types.ObjectId(input.userId),
        state: 'pending',
        createdAt: new Date(),
        createdBy: claim,
      });
      return created.toObject() as LedgerEntryDoc;
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      const existing = await this.entries.findById(key).lean();
      if (!existing) throw err;
      return existing as LedgerEntryDoc;
    }
  }

  /** Steps 2 and 3 for a pending entry; safe to run again after a crash. */
  async complete(entry: LedgerEntryDoc, fresh = false): Promise<LedgerOutcome> {
    const userId = String(entry.userId);
    if (entry.amount === 0) {
      // A capture moves no credits (its reservation did): it needs no balance version, and taking
      // one would only make every capture contend with the owner's other balance changes.
      return this.finalize(entry, (await this.accounts.balanceOf(userId)).balance);
    }
    const change = await this.perAccount.run(userId, () =>
      this.accounts.applyBalanceChange(userId, String(entry._id), entry.amount, fresh),
    );
    if (change.status === 'no_account') return this.reject(entry, 'no_account');
    if (change.status === 'insufficient') return this.reject(entry, 'insufficient_funds');
    return this.finalize(entry, change.balance);
  }

  private async finalize(entry: LedgerEntryDoc, balance: number): Promise<LedgerOutcome> {
    await this.entries.updateOne(
      { _id: entry._id, state: 'pending' },
      { $set: { state: 'applied', appliedAt: new Date(), balanceAfter: balance } },
    );
    const applied = { ...entry, state: 'applied' as const, balanceAfter: balance };
    await this.announce(applied);
    return { ok: true, entry: applied, balance };
  }

  private async reject(
    entry: LedgerEntryDoc,
    reason: 'insufficient_funds' | 'no_account',
  ): Promise<LedgerOutcome> {
    await this.entries.updateOne({ _id: entry._id, state: 'pending' }, { $set: { state: 'rejected' } });
    return { ok: false, reason };
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
    const applied = await this.accounts.versionOfEntry(String(entry._id));
    if (applied) await this.finalize(entry, applied.balance);
    else await this.reject(entry, 'insufficient_funds');
  }

  private async appliedReservation(key: string): Promise<LedgerEntryDoc | null> {
    const found = await this.entries.findById(key).lean();
    const row = found?.kind === 'reservation' ? found : null;
    if (row?.state === 'pending') await this.voidIfUnapplied(row as LedgerEntryDoc);
    const current = row?.state === 'pending' ? await this.entries.findById(key).lean() : row;
    return current?.state === 'applied' ? (current as LedgerEntryDoc) : null;
  }

  // ---- recovery ---------------------------------------------------------------------------

  /**
   * Completes or undoes whatever a crash interrupted. Runs at boot and every minute, on every
   * instance; every step is idempotent, so instances running it together do no harm.
   */
  async recover(
    staleMs = STALE_STEP_MS,
  ): Promise<{ completed: number; voided: number; refunded: number; announced: number }> {
    const cutoff = new Date(Date.now() - staleMs);
    const stats = { completed: 0, voided: 0, refunded: 0, announced: 0 };

    // Interrupted after step 1 or 2: finish it — except a reservation whose request died before
    // deducting, which nobody is waiting for: void it.
    const pending = await this.entries
      .find({ state: 'pending', createdAt: { $lte: cutoff } })
      .limit(1000)
      .lean();
    for (const entry of pending as LedgerEntryDoc[]) {
      if (entry.kind === 'reservation') {
        await this.voidIfUnapplied(entry);
        stats.voided += 1;
      } else {
        const outcome = await this.complete(entry);
        if (outcome.ok && entry.kind === 'capture' && entry.reservationKey) {
          const reservation = await this.entries.findById(entry.reservationKey).lean();
          if (reservation) await this.afterCapture(reservation as LedgerEntryDoc);
        }
        stats.completed += 1;
      }
    }

    // Reservations past their hold whose job is gone (killed between deduction and job record).
    const expired = await this.entries
      .find({
        kind: 'reservation',
        state: 'applied',
        settlement: { $exists: false },
        expiresAt: { $lte: new Date() },
      })
      .limit(1000)
      .lean();
    for (const row of expired) {
      if (row.jobId && (await this.jobs.isAlive(row.jobId))) {
        await this.entries.updateOne(
          { _id: row._id },
          { $set: { expiresAt: new Date(Date.now() + RESERVATION_HOLD_MS) } },
        );
        continue;
      }
      if ((await this.refund(row._id, 'Credits returned: the job did not run')) > 0) stats.refunded += 1;
      else await this.markSettled(row._id);
    }

    // Interrupted after step 3 but before the announcement.
    const silent = await this.entries
      .find({ state: 'applied', announced: false, appliedAt: { $lte: cutoff } })
      .limit(1000)
      .lean();
    for (const entry of silent as LedgerEntryDoc[]) {
      await this.announce(entry);
      stats.announced += 1;
    }
    return stats;
  }

  /** Copies a settlement that happened onto its reservation (a crash may have skipped it). */
  private async markSettled(reservationKey: string): Promise<void> {
    const settled = await this.entries.findById(settleKey(reservationKey)).lean();
    if (settled?.state !== 'applied') return;
    await this.entries.updateOne(
      { _id: reservationKey },
      { $set: { settlement: settled.kind === 'capture' ? 'captured' : 'refunded' } },
    );
  }

  async onApplicationBootstrap(): Promise<void> {
    const run = () =>
      this.recover()
        .then((s) => {
          if (s.completed + s.voided + s.refunded + s.announced > 0)
            this.logger.log(`ledger recovery: ${JSON.stringify(s)}`);
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

const settleKey = (reservationKey: string) => `settle:${reservationKey}`;

/** The fields a capture or refund entry takes from the reservation it settles. */
function settlementOf(reservation: LedgerEntryDoc) {
  return {
    key: settleKey(reservation._id),
    userId: String(reservation.userId),
    username: reservation.username,
    jobId: reservation.jobId,
    tool: reservation.tool,
    reservationKey: reservation._id,
  };
}

function toHistoryEntry(row: LedgerEntry): CreditHistoryEntry {
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
