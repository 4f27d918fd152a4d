import { Controller, Get, Inject, Injectable, Logger, Req } from '@nestjs/common';
import { ApiForbiddenResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { InjectModel, Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import MailChecker from 'mailchecker';
import { Model, Types } from 'mongoose';
import type { Request } from 'express';
import {
  ALLOWANCE_REFUSALS,
  DomainEvents,
  plural,
  type AllowanceRefusal,
  type AllowanceStats,
  type AllowanceStatus,
  type DomainEventEnvelope,
} from '@studio/contracts';
import { ok } from '../../common/api-response';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { AccountsRepository } from '../accounts';
import { CurrentUser, Roles, type AuthUser } from '../auth';
import { OnDomainEvent } from '../events';
import { mailboxOf } from '../mail';
import { LedgerEntry } from './ledger-entry.schema';
import { LedgerService } from './ledger.service';

/**
 * One use of a limited right to the allowance: `email:<address>` (one per verified address) or
 * `address:<client address>:<UTC day>:<slot>` (WELCOME_ALLOWANCE_PER_ADDRESS_PER_DAY slots). The
 * unique `_id` decides between two accounts claiming at once, on MongoDB and FerretDB alike.
 * `refusal:<userId>` keeps the decision's `reason` when none was granted, so the account's screens
 * can say why (GET /api/billing/allowance).
 */
@Schema({ collection: 'allowance_claims', versionKey: false })
export class AllowanceClaim {
  @Prop({ type: String, required: true })
  _id!: string;

  @Prop({ type: Types.ObjectId, required: true })
  userId!: Types.ObjectId;

  @Prop({ required: true, default: () => new Date() })
  createdAt!: Date;

  @Prop({ type: String })
  reason?: AllowanceRefusal;
}
export const AllowanceClaimSchema = SchemaFactory.createForClass(AllowanceClaim);

export type AllowanceOutcome =
  | { granted: true; coins: number; balance: number }
  | { granted: false; reason: 'off' | 'no_account' | 'unverified' | 'already' | AllowanceRefusal };

const refusalKey = (userId: string) => `refusal:${userId}`;
/** The claim of a mailbox's one allowance (its spellings folded: mailboxOf). */
const emailClaimOf = (email: string) => `email:${mailboxOf(email)}`;

const isRefusal = (reason: string): reason is AllowanceRefusal =>
  (ALLOWANCE_REFUSALS as readonly string[]).includes(reason);

/** The ledger key of an account's allowance: at most one per account, however often it is asked. */
export const allowanceKey = (userId: string) => `allowance:${userId}`;

/** True for an address of a throwaway-mail provider (mailchecker's maintained list). */
export function isDisposableAddress(email: string): boolean {
  return !MailChecker.isValid(email.trim().toLowerCase());
}

/**
 * The free allowance: WELCOME_ALLOWANCE_COINS granted once to an account when its email is
 * verified, through the ledger (kind 'allowance', so history, audit and statistics tell it from
 * purchases). Limited against abuse: once per account (ledger key), once per mailbox, a number of
 * accounts per client address per day, none for throwaway-mail domains.
 */
@Injectable()
export class WelcomeAllowance {
  private readonly logger = new Logger(WelcomeAllowance.name);

  constructor(
    @InjectModel(AllowanceClaim.name) private readonly claims: Model<AllowanceClaim>,
    @InjectModel(LedgerEntry.name) private readonly entries: Model<LedgerEntry>,
    private readonly ledger: LedgerService,
    private readonly accounts: AccountsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  get coins(): number {
    return this.config.WELCOME_ALLOWANCE_COINS;
  }

  /** Runs in the worker, from the durable event: a retry after a crash repeats it harmlessly. */
  @OnDomainEvent(DomainEvents.emailVerified)
  async onEmailVerified({ payload }: DomainEventEnvelope<'account.email_verified'>): Promise<void> {
    const outcome = await this.grant(payload.userId, payload.clientIp, new Date());
    if (!outcome.granted && outcome.reason !== 'off') {
      this.logger.log(`no allowance for ${payload.username}: ${outcome.reason}`);
    }
    // Kept for the newcomer's screens: they say why no coins came and what to do instead.
    if (!outcome.granted && isRefusal(outcome.reason)) {
      await this.claims.updateOne(
        { _id: refusalKey(payload.userId) },
        {
          $set: { reason: outcome.reason, createdAt: new Date() },
          $setOnInsert: { userId: new Types.ObjectId(payload.userId) },
        },
        { upsert: true },
      );
    }
  }

  /**
   * Where the account's allowance stands: for the newcomer's home and verification screens. Before
   * the address is verified, `clientIp` (the asking request's) lets it say what would refuse the
   * coins if it were verified now from that network (read only: nothing is claimed).
   */
  async statusOf(userId: string, clientIp?: string): Promise<AllowanceStatus> {
    const coins = this.coins;
    if (coins <= 0) return { state: 'off' };
    if (await this.ledger.appliedEntry(userId, allowanceKey(userId))) return { state: 'granted', coins };
    const account = await this.accounts.findById(userId);
    if (!account) return { state: 'unverified', coins };
    if (!account.emailVerified) {
      const expected = await this.expectedRefusal(userId, account.email, clientIp, new Date());
      return expected ? { state: 'unverified', coins, expected } : { state: 'unverified', coins };
    }
    const refusal = await this.claims.findById(refusalKey(userId)).lean();
    if (refusal?.reason && isRefusal(refusal.reason))
      return { state: 'refused', coins, reason: refusal.reason };
    return { state: 'pending', coins };
  }

  /** Grants the allowance to `userId` if every limit allows it. Idempotent per account. */
  async grant(userId: string, clientIp: string | undefined, now: Date): Promise<AllowanceOutcome> {
    if (this.coins <= 0) return { granted: false, reason: 'off' };
    if (await this.ledger.appliedEntry(userId, allowanceKey(userId)))
      return { granted: false, reason: 'already' };
    const account = await this.accounts.findById(userId);
    if (!account) return { granted: false, reason: 'no_account' };
    if (!account.emailVerified) return { granted: false, reason: 'unverified' };
    if (isDisposableAddress(account.email)) return { granted: false, reason: 'disposable' };

    // Claims first, the credit after: a crash between them leaves claims held by this account,
    // which a retry finds as its own and goes on to the (idempotent) credit.
    if (!(await this.claim(emailClaimOf(account.email), userId)))
      return { granted: false, reason: 'address_used' };
    if (clientIp && !(await this.claimAddressSlot(clientIp, userId, now)))
      return { granted: false, reason: 'address_today' };

    const outcome = await this.ledger.credit({
      key: allowanceKey(userId),
      userId,
      username: account.username,
      kind: 'allowance',
      amount: this.coins,
      reason: `Free allowance of ${plural(this.coins, 'coin')} for verifying your email`,
      actor: { username: 'studio' },
    });
    if (!outcome.ok) return { granted: false, reason: 'no_account' };
    return { granted: true, coins: this.coins, balance: outcome.balance };
  }

  /** grant()'s refusals, foreseen for an address not verified yet; undefined when none applies. */
  private async expectedRefusal(
    userId: string,
    email: string,
    clientIp: string | undefined,
    now: Date,
  ): Promise<AllowanceRefusal | undefined> {
    if (isDisposableAddress(email)) return 'disposable';
    if (!(await this.claimable([emailClaimOf(email)], userId))) return 'address_used';
    if (clientIp && !(await this.claimable(this.addressSlots(clientIp, now), userId))) return 'address_today';
    return undefined;
  }

  /** Whether this account could hold one of the claims: one is free, or held by it already. One read. */
  private async claimable(ids: string[], userId: string): Promise<boolean> {
    const held = await this.claims.find({ _id: { $in: ids } }).lean();
    return held.length < ids.length || held.some((holder) => String(holder.userId) === userId);
  }

  /** The first free slot of the client address for today (UTC), or one this account holds. */
  private async claimAddressSlot(clientIp: string, userId: string, now: Date): Promise<boolean> {
    for (const slot of this.addressSlots(clientIp, now)) {
      if (await this.claim(slot, userId)) return true;
    }
    return false;
  }

  /** The claims of a client address's allowances for the day of `now` (UTC), one per slot. */
  private addressSlots(clientIp: string, now: Date): string[] {
    const day = now.toISOString().slice(0, 10);
    return Array.from(
      { length: this.config.WELCOME_ALLOWANCE_PER_ADDRESS_PER_DAY },
      (_, i) => `address:${clientIp}:${day}:${i + 1}`,
    );
  }

  /** True when this account now holds the claim (inserted now, or earlier by the same account). */
  private async claim(id: string, userId: string): Promise<boolean> {
    try {
      await this.claims.create({ _id: id, userId: new Types.ObjectId(userId), createdAt: new Date() });
      return true;
    } catch (err) {
      if ((err as { code?: number }).code !== 11000) throw err;
      const holder = await this.claims.findById(id).lean();
      return String(holder?.userId) === userId;
    }
  }

  /**
   * For the admin statistics, apart from purchases: allowances granted since `from`. Read from
   * the ledger (the `kind` prefix of its kind/tool/createdAt index), never from log text.
   */
  async grantedSince(from: Date): Promise<{ count: number; coins: number }> {
    // Summed here: the embedded engine's $group gives 0 for a second accumulator over a field.
    const rows = await this.entries
      .find({ kind: 'allowance', state: 'applied', createdAt: { $gte: from } }, { amount: 1, _id: 0 })
      .lean();
    return { count: rows.length, coins: rows.reduce((sum, row) => sum + row.amount, 0) };
  }
}

const DAY_MS = 86_400_000;

/** The allowance as its newcomer sees it, and the admins' totals. */
@Controller()
export class AllowanceStatsController {
  constructor(private readonly allowance: WelcomeAllowance) {}

  @Get('billing/allowance')
  @ApiTags('billing')
  @ApiOperation({
    summary:
      "The caller's welcome allowance: off, unverified, pending (being decided), granted, or refused with its reason",
  })
  @ApiOkResponse({ description: '{message, content: {state, coins?, reason?}}' })
  async mine(@CurrentUser() user: AuthUser, @Req() req: Request) {
    return ok(await this.allowance.statusOf(user.id, req.ip));
  }

  @Get('admin/allowances')
  @ApiTags('admin')
  @Roles('admin')
  @ApiForbiddenResponse({ description: 'Not an admin' })
  @ApiOperation({ summary: 'Free allowances granted (apart from purchases): today (UTC), 7 and 30 days' })
  @ApiOkResponse({ description: '{message, content: {coinsEach, today, week, month}}' })
  async stats() {
    const now = Date.now();
    const startOfDay = new Date(now - (now % DAY_MS));
    const [today, week, month] = await Promise.all([
      this.allowance.grantedSince(startOfDay),
      this.allowance.grantedSince(new Date(startOfDay.getTime() - 6 * DAY_MS)),
      this.allowance.grantedSince(new Date(startOfDay.getTime() - 29 * DAY_MS)),
    ]);
    const stats: AllowanceStats = { coinsEach: this.allowance.coins, today, week, month };
    return ok(stats);
  }
}
