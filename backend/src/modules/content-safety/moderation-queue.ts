import { Injectable } from '@nestjs/common';
import { SAFETY_REASONS, type HeldItem } from '@studio/contracts';
import { AccountsRepository } from '../accounts';
import type { AuthUser } from '../auth';
import { FoldersService } from '../folders';
import { SafetyLog } from './safety-log';

/** Held outputs for staff to release or remove; the owner is told through the safety event and the folder push. */
@Injectable()
export class ModerationQueue {
  constructor(
    private readonly folders: FoldersService,
    private readonly accounts: AccountsRepository,
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

  file(itemId: string) {
    return this.folders.heldFile(itemId);
  }

  async decide(staff: AuthUser, itemId: string, decision: 'released' | 'removed'): Promise<void> {
    const item = await this.folders.decideHeld(itemId, decision, staff.username);
    const ownerId = String(item.owner);
    await this.log.record({
      userId: ownerId,
      username: (await this.accounts.findById(ownerId))?.username ?? ownerId,
      action: decision,
      reason: item.moderation!.reason,
      itemId,
      jobId: item.jobId,
      by: { userId: staff.id, username: staff.username },
    });
  }
}
