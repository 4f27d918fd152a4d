import { BadRequestException, Injectable, NotFoundException } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model, Types } from 'mongoose';
import { randomUUID } from 'node:crypto';
import type { BulkReimbursePreview, CreditHistoryEntry, Page } from '@studio/contracts';
import { AccountsRepository } from '../accounts/accounts.repository';
import type { AuthUser } from '../auth/auth-user';
import { LedgerEntry } from './ledger-entry.schema';
import { LedgerService } from './ledger.service';

const BULK_WINDOW_MAX_DAYS = 31;

/** Credit tools for support staff (reimburse) and admins (grant, adjust). */
@Injectable()
export class SupportCreditsService {
  constructor(
    private readonly ledger: LedgerService,
    private readonly accounts: AccountsRepository,
    @InjectModel(LedgerEntry.name) private readonly entries: Model<LedgerEntry>,
  ) {}

  async reimburse(
    actor: AuthUser,
    input: { username: string; amount: number; reason: string; requestId?: string },
  ) {
    return this.change(actor, 'reimbursement', input);
  }

  async grant(
    actor: AuthUser,
    input: { username: string; amount: number; reason: string; requestId?: string },
  ) {
    return this.change(actor, 'grant', input);
  }

  async adjust(
    actor: AuthUser,
    input: { username: string; amount: number; reason: string; requestId?: string },
  ) {
    return this.change(actor, 'adjustment', input);
  }

  async historyOf(username: string, page?: number, pageSize?: number): Promise<Page<CreditHistoryEntry>> {
    const account = await this.requireAccount(username);
    return this.ledger.history(account.id, page, pageSize);
  }

  /** Who spent what on a tool in a window, not yet reimbursed. */
  async previewBulk(tool: string, from: string, to: string): Promise<BulkReimbursePreview> {
    const spends = await this.unreimbursedSpends(tool, from, to);
    const byUser = new Map<string, number>();
    for (const s of spends) byUser.set(s.username, (byUser.get(s.username) ?? 0) + s.amount);
    const users = [...byUser]
      .map(([username, amount]) => ({ username, amount }))
      .sort((a, b) => b.amount - a.amount);
    return { tool, from, to, users, totalCredits: users.reduce((sum, u) => sum + u.amount, 0) };
  }

  /**
   * Gives every spend in the window back, each at most once (keyed by the spend), so repeating
   * the request, or overlapping windows, never pays twice.
   */
  async confirmBulk(
    actor: AuthUser,
    input: { tool: string; from: string; to: string; reason: string },
  ): Promise<BulkReimbursePreview> {
    const spends = await this.unreimbursedSpends(input.tool, input.from, input.to);
    const paid = new Map<string, number>();
    for (const spend of spends) {
      const outcome = await this.ledger.credit({
        key: `reimburse-spend:${spend.reservationKey}`,
        userId: spend.userId,
        username: spend.username,
        kind: 'reimbursement',
        amount: spend.amount,
        reason: input.reason,
        actor: { userId: actor.id, username: actor.username },
        tool: input.tool,
        reservationKey: spend.reservationKey,
      });
      if (outcome.ok) paid.set(spend.username, (paid.get(spend.username) ?? 0) + spend.amount);
    }
    const users = [...paid]
      .map(([username, amount]) => ({ username, amount }))
      .sort((a, b) => b.amount - a.amount);
    return { ...input, users, totalCredits: users.reduce((sum, u) => sum + u.amount, 0) };
  }

  private async unreimbursedSpends(tool: string, from: string, to: string) {
    const start = new Date(from);
    const end = new Date(to);
    if (!(start < end)) throw new BadRequestException('from must be before to');
    if (end.getTime() - start.getTime() > BULK_WINDOW_MAX_DAYS * 86_400_000) {
      throw new BadRequestException(`The window may span at most ${BULK_WINDOW_MAX_DAYS} days`);
    }
    const captured = await this.entries
      .find({
        kind: 'reservation',
        state: 'applied',
        settlement: 'captured',
        tool,
        createdAt: { $gte: start, $lt: end },
      })
      .select({ userId: 1, username: 1, amount: 1 })
      .lean();
    if (captured.length === 0) return [];
    const done = await this.entries
      .find({ kind: 'reimbursement', reservationKey: { $in: captured.map((c) => c._id) }, state: 'applied' })
      .select({ reservationKey: 1 })
      .lean();
    const reimbursed = new Set(done.map((d) => d.reservationKey));
    return captured
      .filter((c) => !reimbursed.has(c._id))
      .map((c) => ({
        reservationKey: c._id,
        userId: String(c.userId as Types.ObjectId),
        username: c.username,
        amount: -c.amount,
      }));
  }

  private async change(
    actor: AuthUser,
    kind: 'reimbursement' | 'grant' | 'adjustment',
    input: { username: string; amount: number; reason: string; requestId?: string },
  ) {
    const account = await this.requireAccount(input.username);
    const outcome = await this.ledger.credit({
      key: `${kind}:${actor.id}:${input.requestId ?? randomUUID()}`,
      userId: account.id,
      username: account.username,
      kind,
      amount: input.amount,
      reason: input.reason,
      actor: { userId: actor.id, username: actor.username },
    });
    if (!outcome.ok) throw new BadRequestException('That would take the balance below zero');
    return { username: account.username, amount: input.amount, balance: outcome.balance };
  }

  private async requireAccount(username: string) {
    const account = await this.accounts.findByUsername(username);
    if (!account) throw new NotFoundException('User not found');
    return account;
  }
}
