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
import { PeriodicTask } from '../../common/periodic-task';
import { GroupInsert } from '../../infrastructure/group-insert';
import { GroupUpdate } from '../../infrastructure/group-update';
import { DomainEventBus } from '../events';
import { LedgerActor, LedgerEntry, RETIRED_LEDGER_INDEXES } from './ledger-entry.schema';
import { AccountBalances } from './account-balances';
import { JobLiveness } from './job-liveness';

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
  hold?: 'open';
}

export type LedgerOutcome =
  /** `appliedNow`: this call moved the balance (false when an earlier call under the key had). */
  | { ok: true; entry: LedgerEntryDoc; balance: number; appliedNow: boolean }
  | { ok: false; reason: 'insufficient_funds' | 'no_account' };

/** How long a reservation is held before recovery asks whether its job still lives. */
export const RESERVATION_HOLD_MS = 15 * 60_000;
/**
 * Recovery leaves entries younger than this to the request that is writing them. It only picks
 * which entries to look at: what happens to one is decided by the account's state.
 */
export const STALE_STEP_MS = 30_000;
const RECOVERY_EVERY_MS = 60_000;

/** A refund that could not be made (a part down) is tried again this often, for this long. */
export const REFUND_RETRY_MS = 2_000;
export const REFUND_RETRY_FOR_MS = 120_000;

/** How a reservation was settled: which of capture and refund won, and what it moved. */
export interface Settlement {
  kind: 'capture' | 'refund';
  /** Credits given back (refund), or 0. */
  refunded: number;
}

/**
 * The credits ledger: one home for money, on MongoDB's ordinary patterns (no multi-document
 * transactions), so it holds on MongoDB and on the embedded engine alike. A change is:
 *   1. intent — insert the entry 'pending' under its idempotency key as `_id` (a replay finds it);
 *   2. apply  — one conditional atomic update of the account (AccountBalances.apply): the balance
 *               guard refuses an overdraft, the key guard applies the entry at most once;
 *   3. final  — announce it (event id derived from the entry, so announcing twice is a no-op;
 *               the pending entry is its outbox), then mark the entry 'applied' with the balance
 *               and account version after it.
 * A capture moves no credits (its reservation did): it is one insert, already 'applied'.
 * Settling a reservation inserts one entry under `settle:<reservation>`, so only one of capture
 * and refund can ever happen. A crash between steps leaves an entry 'pending': recovery asks the
 * account whether it took the entry (its key is in `ledgerRecent`) and finishes it, or applies it,
 * or voids a reservation nobody waits for (a guarded update on the account, so a late step 2 of
 * the request that wrote it can no longer land).
 */
@Injectable()
export class LedgerService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(LedgerService.name);
  private readonly recovery = new PeriodicTask(() =>
    this.recover().then(
      (s) => {
        if (s.completed + s.voided + s.refunded + s.announced > 0)
          this.logger.log(`ledger recovery: ${JSON.stringify(s)}`);
      },
      (err: Error) => this.logger.error(`ledger recovery failed: ${err.message}`),
    ),
  );
  /** New entries, sent together with concurrent requests' (group commit). */
  private readonly inserts = new GroupInsert<LedgerEntry>(() => this.entries.collection as never);
  /** Marks entries applied, rejected or settled: no caller reads the result, so they go out together. */
  private readonly marks = new GroupUpdate<LedgerEntry>(() => this.entries.collection as never);
  /** Refunds waiting to be tried again (refundSoon). */
  private readonly retries = new Set<NodeJS.Timeout>();
  private stopped = false;

  constructor(
    @InjectModel(LedgerEntry.name) private readonly entries: Model<LedgerEntry>,
    private readonly balances: AccountBalances,
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
    // No balance read first: the guarded update decides. A refusal then costs the refused entry's
    // writes, but requests are refused earlier (the upload preflight reads the balance), and
    // every reservation would pay the read.
    return this.change({
      ...rest,
      kind: 'reservation',
      amount: -Math.abs(amount),
      expiresAt: new Date(Date.now() + holdMs),
      hold: 'open',
    });
  }

  /** The job succeeded: its reservation becomes a final spend. False when already settled. */
  async capture(reservationKey: string): Promise<boolean> {
    const reservation = await this.appliedReservation(reservationKey);
    if (!reservation) return false;
    const { entry, created } = await this.insert(
      { ...settlementOf(reservation), kind: 'capture', amount: 0, reason: reservation.reason },
      'applied',
    );
    if (!created) {
      // Settled already; repeat the capture's follow-up in case a crash cut it short.
      if (entry.kind === 'capture') await this.afterCapture(reservation);
      return false;
    }
    await this.afterCapture(reservation);
    return true;
  }

  /** Marks the reservation captured and announces the spend (idempotent; recovery repeats it). */
  private async afterCapture(reservation: LedgerEntryDoc): Promise<void> {
    await this.events.publishDirect(
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
    await this.markSettled(reservation._id, 'captured');
  }

  /**
   * The job failed or was abandoned: the reservation's credits go back, once. A reservation that
   * never reached the balance is voided instead. Returns the credits given back by this call.
   */
  async refund(reservationKey: string, reason: string): Promise<number> {
    const reservation = await this.appliedReservation(reservationKey);
    if (!reservation) return 0;
    const { entry, created } = await this.insert(
      { ...settlementOf(reservation), kind: 'refund', amount: -reservation.amount, reason },
      'pending',
    );
    if (entry.kind !== 'refund') return 0; // captured before
    // Finish it whoever inserted it (a crashed refund is completed here); only the inserter
    // reports the credits as given back by this call.
    const paid = entry.state === 'pending' ? (await this.complete(entry)).ok : entry.state === 'applied';
    if (paid) await this.markSettled(reservation._id, 'refunded');
    return created && paid ? entry.amount : 0;
  }

  /**
   * A refund that could not be made now (the database or Redis down while a submission was undone):
   * tried again every REFUND_RETRY_MS for REFUND_RETRY_FOR_MS, so the credits come back soon after
   * the part does; past that (or if this process ends) recovery gives them back when the
   * reservation's hold ends (RESERVATION_HOLD_MS). Idempotent like refund itself.
   */
  refundSoon(reservationKey: string, reason: string): void {
    const until = Date.now() + REFUND_RETRY_FOR_MS;
    const retry = async (): Promise<void> => {
      this.retries.delete(timer);
      if (this.stopped) return;
      try {
        await this.refund(reservationKey, reason);
        this.logger.log(`reservation ${reservationKey} given back after a failed undo`);
      } catch (err) {
        if (Date.now() >= until) {
          this.logger.warn(`reservation ${reservationKey}: left to recovery (${(err as Error).message})`);
          return;
        }
        timer = setTimeout(() => void retry(), REFUND_RETRY_MS).unref();
        this.retries.add(timer);
      }
    };
    let timer = setTimeout(() => void retry(), REFUND_RETRY_MS).unref();
    this.retries.add(timer);
  }

  /** How a reservation was settled, or null while it is open (or was never applied). */
  async settlement(reservationKey: string): Promise<Settlement | null> {
    const entry = await this.entries.findById(settleKey(reservationKey)).lean();
    if (!entry || entry.state === 'rejected') return null;
    return entry.kind === 'refund'
      ? { kind: 'refund', refunded: entry.amount }
      : { kind: 'capture', refunded: 0 };
  }

  /**
   * Gives back one output's share of a job that was paid for (captured), after the fact: a
   * moderator removed an output the owner never saw. The job's cost is split over its `parts`
   * outputs (the first `cost % parts` take one credit more, so the shares add up to the cost).
   * Once per key: a repeat applies nothing and answers the same share. Null when the job was not
   * captured (free, refunded already, or never charged): nothing is given back.
   */
  async refundCapturedShare(input: {
    key: string;
    reservationKey: string;
    part: number;
    parts: number;
    reason: string;
    actor: LedgerActor;
  }): Promise<{ credits: number; appliedNow: boolean } | null> {
    const reservation = await this.entries.findById(input.reservationKey).lean();
    const settled = await this.settlement(input.reservationKey);
    if (reservation?.kind !== 'reservation' || settled?.kind !== 'capture') return null;
    const cost = -reservation.amount;
    const parts = Math.max(1, input.parts);
    const credits = Math.floor(cost / parts) + (input.part < cost % parts ? 1 : 0);
    if (credits <= 0) return null;
    const outcome = await this.credit({
      key: input.key,
      userId: String(reservation.userId),
      username: reservation.username,
      kind: 'refund',
      amount: credits,
      reason: input.reason,
      actor: input.actor,
      jobId: reservation.jobId,
      tool: reservation.tool,
    });
    return outcome.ok ? { credits, appliedNow: outcome.appliedNow } : null;
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

  // ---- the steps --------------------------------------------------------------------------

  private async change(input: LedgerChange): Promise<LedgerOutcome> {
    const { entry } = await this.insert(input, 'pending');
    if (entry.state === 'applied') {
      const balance = entry.balanceAfter ?? (await this.balances.balanceOf(input.userId)) ?? 0;
      return { ok: true, entry, balance, appliedNow: false };
    }
    if (entry.state === 'rejected') return { ok: false, reason: 'insufficient_funds' };
    return this.complete(entry);
  }

  /** Step 1 alone (tests use it to stage a crash): the pending entry, or the existing one. */
  async recordIntent(input: LedgerChange): Promise<LedgerEntryDoc> {
    return (await this.insert(input, 'pending')).entry;
  }

  /**
   * The entry under its key, in `state`; `created` tells whether this call inserted it (otherwise
   * the existing entry under that key is returned).
   */
  private async insert(
    input: LedgerChange,
    state: 'pending' | 'applied',
  ): Promise<{ entry: LedgerEntryDoc; created: boolean }> {
    const { key, ...fields } = input;
    const now = new Date();
    const defined = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
    const row = {
      ...defined,
      _id: key,
      userId: new Types.ObjectId(input.userId),
      state,
      createdAt: now,
      ...(state === 'applied' ? { appliedAt: now } : {}),
    };
    if (await this.inserts.insert(row as never)) return { entry: row as LedgerEntryDoc, created: true };
    const existing = await this.entries.findById(key).lean();
    if (!existing) throw new Error(`ledger entry ${key}: duplicate key, but no entry under it`);
    return { entry: existing as LedgerEntryDoc, created: false };
  }

  /** Steps 2 and 3 for a pending entry; safe to run again, by anyone, after a crash. */
  async complete(entry: LedgerEntryDoc): Promise<LedgerOutcome> {
    const userId = String(entry.userId);
    if (entry.amount === 0) return this.finalize(entry, await this.balances.balanceOf(userId));
    const change = await this.balances.apply(userId, String(entry._id), entry.amount);
    switch (change.status) {
      case 'applied':
        return this.finalize(entry, change.balance, change.version, true);
      case 'already':
        return this.finalize(entry, change.balance);
      case 'no_account':
        return this.reject(entry, 'no_account');
      case 'voided':
        return this.reject(entry, 'insufficient_funds');
      case 'insufficient': {
        // Refused for good, on the account too: a replay holding this entry as 'pending' must
        // not apply it later, when the balance may have grown, behind a 'rejected' entry.
        if ((await this.voidIfUnapplied(entry)) === 'applied') {
          const balance = (await this.balances.balanceOf(userId)) ?? 0;
          return { ok: true, entry: { ...entry, state: 'applied' }, balance, appliedNow: false };
        }
        return { ok: false, reason: 'insufficient_funds' };
      }
    }
  }

  /**
   * Announces the applied entry, then marks it applied. `balance` is the balance right after it
   * when this call applied it; a recovery that finds it applied announces the current balance.
   */
  private async finalize(
    entry: LedgerEntryDoc,
    balance: number | null,
    version?: number,
    appliedNow = false,
  ): Promise<LedgerOutcome> {
    const applied: LedgerEntryDoc = { ...entry, state: 'applied', balanceAfter: balance ?? 0 };
    if (version !== undefined) applied.version = version;
    try {
      await this.announce(applied);
    } catch (err) {
      // The change stands; the entry stays 'pending' until recovery has announced it.
      this.logger.warn(
        `entry ${entry._id} applied, announcement left to recovery: ${(err as Error).message}`,
      );
      return { ok: true, entry: applied, balance: balance ?? 0, appliedNow };
    }
    const set: Partial<LedgerEntry> = { state: 'applied', appliedAt: new Date() };
    if (version !== undefined) Object.assign(set, { balanceAfter: balance ?? 0, version });
    await this.marks.updateOne({ _id: entry._id, state: 'pending' }, { $set: set });
    return { ok: true, entry: applied, balance: balance ?? 0, appliedNow };
  }

  private async reject(
    entry: LedgerEntryDoc,
    reason: 'insufficient_funds' | 'no_account',
  ): Promise<LedgerOutcome> {
    await this.marks.updateOne({ _id: entry._id, state: 'pending' }, { $set: { state: 'rejected' } });
    return { ok: false, reason };
  }

  private async announce(entry: LedgerEntryDoc): Promise<void> {
    if (entry.amount === 0) return;
    await this.events.publishDirect(
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

  /**
   * A pending reservation nobody will finish: void it on the account, unless its deduction
   * landed first (then it is finished as applied). Decided by the account's state, not by time.
   */
  private async voidIfUnapplied(entry: LedgerEntryDoc): Promise<'applied' | 'voided'> {
    const userId = String(entry.userId);
    const on = await this.balances.void(userId, String(entry._id));
    if (on === 'applied') {
      await this.finalize(entry, await this.balances.balanceOf(userId));
      return 'applied';
    }
    await this.reject(entry, on === 'no_account' ? 'no_account' : 'insufficient_funds');
    return 'voided';
  }

  /** The reservation under `key` if it reached the balance (a pending one is reconciled first). */
  private async appliedReservation(key: string): Promise<LedgerEntryDoc | null> {
    const found = await this.entries.findById(key).lean();
    if (found?.kind !== 'reservation') return null;
    if (found.state === 'pending') {
      // The account decides: applied there, it is applied, even while its entry stays 'pending'
      // because its announcement could not go out (Redis down) and waits for recovery.
      const on = await this.voidIfUnapplied(found as LedgerEntryDoc);
      return on === 'applied' ? ({ ...found, state: 'applied' } as LedgerEntryDoc) : null;
    }
    return found.state === 'applied' ? (found as LedgerEntryDoc) : null;
  }

  /** Copies a settlement onto its reservation and closes its hold (idempotent). */
  private async markSettled(reservationKey: string, settlement: 'captured' | 'refunded'): Promise<void> {
    await this.marks.updateOne({ _id: reservationKey }, { $set: { settlement }, $unset: { hold: 1 } });
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

    // Interrupted between steps: the account says whether the change landed. A change that did
    // is finished (announced, marked applied); one that did not is applied now — except a
    // reservation, whose request is gone: it is voided.
    const pending = await this.entries
      .find({ state: 'pending', createdAt: { $lte: cutoff } })
      .limit(1000)
      .lean();
    for (const entry of pending as LedgerEntryDoc[]) {
      if (entry.kind === 'reservation') {
        await this.voidIfUnapplied(entry);
        stats.voided += 1;
        continue;
      }
      const outcome = await this.complete(entry);
      if (outcome.ok && entry.reservationKey) {
        const reservation = await this.entries.findById(entry.reservationKey).lean();
        if (reservation && entry.kind === 'capture') await this.afterCapture(reservation as LedgerEntryDoc);
        else if (reservation) await this.markSettled(reservation._id, 'refunded');
      }
      stats.completed += 1;
    }

    // Open reservations past their hold: settled already (a crash skipped the copy), held by a
    // live job (hold extended), or abandoned (killed between deduction and job record: refunded).
    const open = await this.entries.find({ hold: 'open' }).limit(5000).lean();
    const now = Date.now();
    const expired = (open as LedgerEntryDoc[]).filter(
      (row) => !row.expiresAt || new Date(row.expiresAt).getTime() <= now,
    );
    for (const row of expired) {
      if (row.kind !== 'reservation' || row.state !== 'applied') {
        // Never reached the balance (voided or refused): nothing is held.
        if (row.state === 'rejected') await this.entries.updateOne({ _id: row._id }, { $unset: { hold: 1 } });
        continue;
      }
      const settled = await this.settlement(row._id);
      if (settled?.kind === 'capture') {
        await this.afterCapture(row);
        continue;
      }
      if (!settled && row.jobId && (await this.jobs.isAlive(row.jobId))) {
        await this.entries.updateOne(
          { _id: row._id },
          { $set: { expiresAt: new Date(Date.now() + RESERVATION_HOLD_MS) } },
        );
        continue;
      }
      if ((await this.refund(row._id, 'Credits returned: the job did not run')) > 0) stats.refunded += 1;
    }
    return stats;
  }

  async onApplicationBootstrap(): Promise<void> {
    // Before anything can move money: balances of accounts from before the balance field.
    await this.balances.migrateFromVersionChains();
    await this.dropRetiredIndexes();
    this.recovery.start(RECOVERY_EVERY_MS, { now: true });
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    for (const timer of this.retries) clearTimeout(timer);
    await this.recovery.stop();
  }

  /** Drops RETIRED_LEDGER_INDEXES where they exist (at boot; idempotent). */
  async dropRetiredIndexes(): Promise<void> {
    const present = new Set(
      (await this.entries.collection.indexes().catch(() => [])).map((index) => index.name),
    );
    for (const name of RETIRED_LEDGER_INDEXES.filter((n) => present.has(n))) {
      await this.entries.collection
        .dropIndex(name)
        .catch((err) => this.logger.warn(`dropping index ${name}: ${(err as Error).message}`));
    }
  }
}

const settleKey = (reservationKey: string) => `settle:${reservationKey}`;

/** The ledger key of the reservation that holds a job's credits until the job settles. */
export const jobReservationKey = (jobId: string) => `job:${jobId}`;

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
