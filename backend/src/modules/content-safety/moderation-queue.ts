import { ConflictException, ForbiddenException, Injectable } from '@nestjs/common';
import {
  ContentMessages,
  ModerationMessages,
  SAFETY_REASONS,
  type HeldItem,
  type ModerationDecision,
  type ModerationOutcome,
  plural,
} from '@studio/contracts';
import { AccountsRepository } from '../accounts';
import type { AuthUser } from '../auth';
import { jobReservationKey, LedgerService } from '../billing';
import { FoldersService } from '../folders';
import { SafetyLog } from './safety-log';

/**
 * Held outputs for moderators to release or remove. Each decision is audited (who, why) and the
 * owner is told through the safety event (a socket push and, on release, the folder's own push); a
 * removed output of a paid job gives its share of the cost back through the ledger, once.
 */
@Injectable()
export class ModerationQueue {
  constructor(
    private readonly folders: FoldersService,
    private readonly accounts: AccountsRepository,
    private readonly ledger: LedgerService,
    private readonly log: SafetyLog,
  ) {}

  async held(): Promise<HeldItem[]> {
    const items = await this.folders.heldItems();
    const owners = new Map<string, string>();
    for (const id of new Set(items.map((item) => String(item.owner)))) {
      owners.set(id, (await this.accounts.findById(id))?.username ?? id);
    }
    return items.map((item) => ({
      itemId: String(item._id),
      owner: owners.get(String(item.owner)) ?? String(item.owner),
      jobId: item.jobId,
      title: item.title,
      reason: item.moderation!.reason,
      reasonText: SAFETY_REASONS[item.moderation!.reason],
      heldAt: new Date(item.moderation!.at).toISOString(),
      scores: item.check?.scores,
      faces: item.check?.faces ?? [],
    }));
  }

  /** The held file, for a moderator to look at; never their own (that would skip the hold). */
  async file(staff: AuthUser, itemId: string) {
    await this.notOwnItem(staff, itemId);
    return this.folders.heldFile(itemId);
  }

  async decide(
    staff: AuthUser,
    itemId: string,
    decision: ModerationDecision,
    note: string,
  ): Promise<ModerationOutcome> {
    const current = await this.notOwnItem(staff, itemId);
    if (current.moderation!.state === 'removed') {
      // Decided already: 409. A removal cut short by a crash before its refund is finished here
      // (the refund's key makes it once), so nothing the owner is owed is lost.
      await this.refundRemoved(staff, current, current.moderation!.note ?? note);
      throw new ConflictException(ContentMessages.alreadyDecided);
    }
    const item = await this.folders.decideHeld(itemId, decision, staff.username, note);
    const refunded = decision === 'removed' ? await this.refundRemoved(staff, item, note) : 0;
    const ownerId = String(item.owner);
    const outcome: ModerationOutcome = {
      itemId,
      jobId: item.jobId,
      title: item.title,
      folderId: String(item.folder),
      decision,
      heldFor: item.moderation!.reason,
      note,
      refunded,
    };
    await this.log.record({
      userId: ownerId,
      username: (await this.accounts.findById(ownerId))?.username ?? ownerId,
      action: decision,
      reason: item.moderation!.reason,
      itemId,
      jobId: item.jobId,
      by: { userId: staff.id, username: staff.username },
      detail: `Why: ${note}${refunded ? ` · Refunded ${plural(refunded, 'coin')}` : ''}`,
      outcome,
    });
    return outcome;
  }

  private async notOwnItem(staff: AuthUser, itemId: string) {
    const item = await this.folders.moderatedItem(itemId);
    if (String(item.owner) === staff.id) throw new ForbiddenException(ModerationMessages.ownItem);
    return item;
  }

  /** The removed output's share of its job's cost, given back once (0 for a job not paid for). */
  private async refundRemoved(
    staff: AuthUser,
    item: Awaited<ReturnType<FoldersService['moderatedItem']>>,
    note: string,
  ): Promise<number> {
    if (!item.jobId) return 0;
    const refund = await this.ledger.refundCapturedShare({
      key: `moderation-removed:${String(item._id)}`,
      reservationKey: jobReservationKey(item.jobId),
      ...(await this.folders.outputShare(item)),
      reason: `Removed after review: ${note}`,
      actor: { userId: staff.id, username: staff.username },
    });
    return refund?.credits ?? 0;
  }
}
