import {
  BadRequestException,
  ConflictException,
  ForbiddenException,
  Injectable,
  NotFoundException,
} from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model, Types } from 'mongoose';
import { randomUUID } from 'node:crypto';
import {
  CREDIT_APPROVAL_THRESHOLD,
  CREDIT_APPROVAL_WINDOW_HOURS,
  CreditMessages,
  DomainEvents,
  STAFF_CREDIT_LIMITS,
  type BulkReimbursePreview,
  type CreditApproval as CreditApprovalView,
  type CreditChangeAnswer,
  type CreditHistoryEntry,
  type Page,
} from '@studio/contracts';
import { AccountsRepository } from '../accounts';
import type { AuthUser } from '../auth';
import { DomainEventBus } from '../events';
import { CreditApproval } from './credit-approval.schema';
import { LedgerEntry } from './ledger-entry.schema';
import { LedgerService } from './ledger.service';
import { StaffCreditUsage } from './staff-credit-usage';

type StaffKind = 'reimbursement' | 'grant' | 'adjustment';
interface CreditChangeInput {
  username: string;
  amount: number;
  reason: string;
  requestId?: string;
}
const APPROVALS_LISTED = 50;

const BULK_WINDOW_MAX_DAYS = 31;
const APPROVAL_WINDOW_MS = CREDIT_APPROVAL_WINDOW_HOURS * 3_600_000;

/**
 * Credit tools for support staff (reimburse) and admins (grant, adjust). Staff never credit
 * themselves, nor an account they promoted to staff or that promoted them; what they give is capped
 * per call and per UTC day by role (STAFF_CREDIT_LIMITS); admin grants that would take what the
 * admin gave over a rolling CREDIT_APPROVAL_WINDOW_HOURS above CREDIT_APPROVAL_THRESHOLD wait for
 * a second admin.
 */
@Injectable()
export class SupportCreditsService {
  constructor(
    private readonly ledger: LedgerService,
    private readonly accounts: AccountsRepository,
    private readonly usage: StaffCreditUsage,
    private readonly events: DomainEventBus,
    @InjectModel(LedgerEntry.name) private readonly entries: Model<LedgerEntry>,
    @InjectModel(CreditApproval.name) private readonly approvals: Model<CreditApproval>,
  ) {}

  reimburse(actor: AuthUser, input: CreditChangeInput): Promise<CreditChangeAnswer> {
    return this.change(actor, 'reimbursement', input);
  }

  grant(actor: AuthUser, input: CreditChangeInput): Promise<CreditChangeAnswer> {
    return this.change(actor, 'grant', input);
  }

  adjust(actor: AuthUser, input: CreditChangeInput): Promise<CreditChangeAnswer> {
    return this.change(actor, 'adjustment', input);
  }

  /**
   * Waiting requests first, then the latest decided ones: read apart, so that a waiting request
   * stays in sight however many were decided after it.
   */
  async listApprovals(): Promise<CreditApprovalView[]> {
    const latest = { createdAt: -1, _id: -1 } as const;
    const pending = await this.approvals
      .find({ state: 'pending' })
      .sort(latest)
      .limit(APPROVALS_LISTED)
      .lean();
    const room = APPROVALS_LISTED - pending.length; // never 0 in limit(): that means no limit
    const decided =
      room > 0
        ? await this.approvals
            .find({ state: { $ne: 'pending' } })
            .sort(latest)
            .limit(room)
            .lean()
        : [];
    return [...pending, ...decided].map(toApprovalView);
  }

  /**
   * Another admin (neither the requester nor the credited user) approves or rejects a waiting
   * request. Approving applies the credit under the request's own key, so a repeated approval,
   * or one retried after a crash between the two writes, credits exactly once.
   */
  async decide(
    approver: AuthUser,
    approvalId: string,
    decision: 'approve' | 'reject',
  ): Promise<CreditApprovalView> {
    const id = new Types.ObjectId(approvalId);
    const decided = await this.approvals
      .findOneAndUpdate(
        {
          _id: id,
          state: 'pending',
          'requestedBy.userId': { $ne: approver.id },
          userId: { $ne: new Types.ObjectId(approver.id) },
        },
        {
          $set: {
            state: decision === 'approve' ? 'approved' : 'rejected',
            decidedBy: { userId: approver.id, username: approver.username },
            decidedAt: new Date(),
          },
        },
        { new: true },
      )
      .lean();
    const request = decided ?? (await this.approvals.findById(id).lean());
    if (!request) throw new NotFoundException(CreditMessages.approvalNotFound);
    if (!decided) {
      if (request.requestedBy.userId === approver.id || String(request.userId) === approver.id) {
        throw new ForbiddenException(CreditMessages.ownApproval);
      }
      // Approved before, perhaps without its credit (a crash): finishing it again is idempotent.
      if (!(request.state === 'approved' && decision === 'approve')) {
        throw new ConflictException(CreditMessages.alreadyDecided);
      }
    }
    const requester = { userId: request.requestedBy.userId!, username: request.requestedBy.username };
    if (request.state === 'approved') {
      // Checked before the credit, also on a retried approval: a role may have changed meanwhile.
      await this.refuseLinked(approver, String(request.userId));
      const outcome = await this.ledger.credit({
        key: `approval:${String(request._id)}`,
        userId: String(request.userId),
        username: request.username,
        kind: request.kind,
        amount: request.amount,
        reason: request.reason,
        actor: requester,
      });
      if (!outcome.ok) throw new BadRequestException(CreditMessages.belowZero);
    } else {
      await this.usage.release(requester.userId, usageSlotOf(request));
    }
    const by = request.decidedBy!;
    await this.events.publish(
      DomainEvents.creditApprovalDecided,
      {
        userId: String(request.userId),
        username: request.username,
        approvalId: String(request._id),
        kind: request.kind,
        amount: request.amount,
        decision: request.state === 'approved' ? 'approved' : 'rejected',
        requestedBy: requester,
        actor: { userId: by.userId!, username: by.username },
      },
      `credit-approval-decided:${String(request._id)}`,
    );
    return toApprovalView(request);
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
    if (spends.some((s) => s.userId === actor.id)) {
      throw new ForbiddenException(CreditMessages.selfCreditInBulk);
    }
    const linked = new Set(await this.accounts.promotionLinksOf(actor.id));
    if (spends.some((s) => linked.has(s.userId))) {
      throw new ForbiddenException(CreditMessages.promotedLink);
    }
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
      .select({ userId: 1, username: 1, amount: 1, jobId: 1 })
      .lean();
    if (captured.length === 0) return [];
    // Part of a spend given back after it was captured (a moderator removed an output the owner
    // never saw): only the rest is reimbursed, so no credit comes back twice.
    const jobIds = captured.map((c) => c.jobId).filter((id): id is string => !!id);
    const givenBack = new Map<string, number>();
    const later = jobIds.length
      ? await this.entries
          .find({
            kind: 'refund',
            state: 'applied',
            reservationKey: { $exists: false },
            jobId: { $in: jobIds },
          })
          .select({ jobId: 1, amount: 1 })
          .lean()
      : [];
    for (const refund of later)
      givenBack.set(refund.jobId!, (givenBack.get(refund.jobId!) ?? 0) + refund.amount);
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
        amount: -c.amount - (c.jobId ? (givenBack.get(c.jobId) ?? 0) : 0),
      }))
      .filter((spend) => spend.amount > 0);
  }

  private async change(
    actor: AuthUser,
    kind: StaffKind,
    input: CreditChangeInput,
  ): Promise<CreditChangeAnswer> {
    const account = await this.requireAccount(input.username);
    if (account.id === actor.id) throw new ForbiddenException(CreditMessages.selfCredit);
    if (input.amount > 0) await this.refuseLinked(actor, account.id);
    const limits = STAFF_CREDIT_LIMITS[actor.role === 'admin' ? 'admin' : 'support'];
    const key = `${kind}:${actor.id}:${input.requestId ?? randomUUID()}`;
    // Taking credits away (a downward adjustment) gives nothing, so only increases are capped.
    const gives = input.amount > 0;
    if (gives && input.amount > limits.perCall) {
      throw new ForbiddenException(CreditMessages.perCall(limits.perCall));
    }
    if (gives && kind !== 'reimbursement') {
      // The threshold holds for the sum over the window, so three grants of 1,000 are no way
      // around a second admin; a grant that would pass it waits for approval like a large one.
      const windowOperation = `${key}:${account.id}`;
      // A request id that already became an approval request stays one, even once the window has room.
      const asked = await this.approvals.findOne({ requestKey: key }).lean();
      if (asked) return { username: asked.username, amount: asked.amount, pending: toApprovalView(asked) };
      const direct =
        input.amount <= CREDIT_APPROVAL_THRESHOLD &&
        (
          await this.usage.reserveWindow(
            actor.id,
            windowOperation,
            input.amount,
            CREDIT_APPROVAL_THRESHOLD,
            APPROVAL_WINDOW_MS,
          )
        ).ok;
      if (!direct) return this.requestApproval(actor, kind, account, input, key, limits.perDay);
      try {
        return await this.apply(actor, kind, account, input, key, limits.perDay);
      } catch (err) {
        await this.usage.releaseWindow(actor.id, windowOperation, input.amount);
        throw err;
      }
    }
    return this.apply(actor, kind, account, input, key, limits.perDay);
  }

  private async apply(
    actor: AuthUser,
    kind: StaffKind,
    account: { id: string; username: string },
    input: CreditChangeInput,
    key: string,
    perDay: number,
  ): Promise<CreditChangeAnswer> {
    const staff = { userId: actor.id, username: actor.username };
    const gives = input.amount > 0;
    // Counted per request id, user and amount: the same id sent again with another amount or
    // for another user (at once, or after a crash between counting and crediting) is counted on
    // its own, not passed as a replay of what was counted first.
    const slot = { day: StaffCreditUsage.today(), operation: `${key}:${account.id}:${input.amount}` };
    if (gives) await this.reserveUsage(actor, slot, input.amount, perDay);
    let outcome;
    try {
      outcome = await this.ledger.credit({
        key,
        userId: account.id,
        username: account.username,
        kind,
        amount: input.amount,
        reason: input.reason,
        actor: staff,
      });
    } catch (err) {
      if (gives) await this.usage.release(actor.id, slot);
      throw err;
    }
    if (!outcome.ok) {
      if (gives) await this.usage.release(actor.id, slot);
      throw new BadRequestException(CreditMessages.belowZero);
    }
    // The ledger answers a used key with the entry stored under it: another request's change.
    if (outcome.entry.amount !== input.amount || String(outcome.entry.userId) !== account.id) {
      if (gives) await this.usage.release(actor.id, slot);
      throw new ConflictException(CreditMessages.requestIdReused);
    }
    return { username: account.username, amount: input.amount, balance: outcome.balance };
  }

  /** A grant above the threshold: counted against today now, credited once another admin approves. */
  private async requestApproval(
    actor: AuthUser,
    kind: StaffKind,
    account: { id: string; username: string },
    input: CreditChangeInput,
    requestKey: string,
    perDay: number,
  ): Promise<CreditChangeAnswer> {
    const asked = await this.approvals.findOne({ requestKey }).lean();
    if (asked) return { username: asked.username, amount: asked.amount, pending: toApprovalView(asked) };
    const id = new Types.ObjectId();
    const slot = { day: StaffCreditUsage.today(), operation: `approval:${String(id)}` };
    await this.reserveUsage(actor, slot, input.amount, perDay);
    let created;
    try {
      created = (
        await this.approvals.create({
          _id: id,
          kind: kind === 'adjustment' ? 'adjustment' : 'grant',
          userId: new Types.ObjectId(account.id),
          username: account.username,
          amount: input.amount,
          reason: input.reason,
          requestedBy: { userId: actor.id, username: actor.username },
          requestKey,
          usageDay: slot.day,
        })
      ).toObject();
    } catch (err) {
      await this.usage.release(actor.id, slot);
      // The same request id sent twice at once: the other one was stored first.
      const other = await this.approvals.findOne({ requestKey }).lean();
      if (!other) throw err;
      return { username: other.username, amount: other.amount, pending: toApprovalView(other) };
    }
    await this.events.publish(
      DomainEvents.creditApprovalRequested,
      {
        userId: account.id,
        username: account.username,
        approvalId: String(id),
        kind: created.kind,
        amount: created.amount,
        reason: created.reason,
        actor: { userId: actor.id, username: actor.username },
      },
      `credit-approval-requested:${String(id)}`,
    );
    return { username: account.username, amount: input.amount, pending: toApprovalView(created) };
  }

  private async reserveUsage(
    actor: AuthUser,
    slot: { day: string; operation: string },
    amount: number,
    perDay: number,
  ) {
    const { ok, used } = await this.usage.reserve(actor.id, slot, amount, perDay);
    if (!ok) throw new ForbiddenException(CreditMessages.perDay(perDay, Math.max(0, perDay - used)));
  }

  /** No credit between staff and the accounts they promoted, or that promoted them. */
  private async refuseLinked(actor: AuthUser, userId: string): Promise<void> {
    if ((await this.accounts.promotionLinksOf(actor.id)).includes(userId)) {
      throw new ForbiddenException(CreditMessages.promotedLink);
    }
  }

  private async requireAccount(username: string) {
    const account = await this.accounts.findByUsername(username);
    if (!account) throw new NotFoundException('User not found');
    return account;
  }
}

function usageSlotOf(request: { _id: unknown; usageDay: string }) {
  return { day: request.usageDay, operation: `approval:${String(request._id)}` };
}

function toApprovalView(row: CreditApproval & { _id: unknown }): CreditApprovalView {
  return {
    _id: String(row._id),
    kind: row.kind,
    username: row.username,
    amount: row.amount,
    reason: row.reason,
    state: row.state,
    requestedBy: row.requestedBy.username,
    decidedBy: row.decidedBy?.username,
    createdAt: (row.createdAt ?? new Date()).toISOString(),
    decidedAt: row.decidedAt?.toISOString(),
  };
}
