import { Injectable } from '@nestjs/common';
import {
  AuditCategory,
  DomainEvents,
  plural,
  SAFETY_REASONS,
  TOOL_LABELS,
  type DomainEventEnvelope,
  type LedgerKind,
} from '@studio/contracts';
import { OnDomainEvent } from '../events';
import { AuditService } from './audit.service';

const SAFETY_ACTION_WORDS = {
  refused: 'Refused',
  withheld: 'Withheld',
  held: 'Held for review',
  released: 'Released',
  removed: 'Removed',
} as const;

/** Records account events in the activity log. */
@Injectable()
export class AuditListener {
  constructor(private readonly audit: AuditService) {}

  @OnDomainEvent(DomainEvents.accountRegistered)
  async onRegistered({ id, payload }: DomainEventEnvelope<'account.registered'>): Promise<void> {
    await this.audit.append({
      eventId: id,
      category: AuditCategory.account,
      author: { userId: payload.userId, username: payload.username },
      message: `Registered account ${payload.username}.`,
      detail: payload.role === 'user' ? undefined : `Role: ${payload.role}`,
    });
  }

  /** Refusals, withheld and held outputs, and moderators' decisions, each with its reason code. */
  @OnDomainEvent(DomainEvents.safetyDecision)
  async onSafetyDecision({ id, payload }: DomainEventEnvelope<'safety.decision'>): Promise<void> {
    const what = payload.tool ? ` ${TOOL_LABELS[payload.tool]}` : '';
    await this.audit.append({
      eventId: id,
      category: AuditCategory.safety,
      author: payload.by ?? { userId: payload.userId, username: payload.username },
      message: `${SAFETY_ACTION_WORDS[payload.action]}${what}: ${payload.reason}.`,
      detail: [
        payload.by && `User ${payload.username}`,
        payload.detail,
        payload.jobId && `Job ${payload.jobId}`,
        payload.itemId && `Item ${payload.itemId}`,
        SAFETY_REASONS[payload.reason],
      ]
        .filter(Boolean)
        .join(' · '),
    });
  }

  @OnDomainEvent(DomainEvents.accountLoggedIn)
  async onLoggedIn({ id, payload }: DomainEventEnvelope<'account.logged_in'>): Promise<void> {
    await this.audit.append({
      eventId: id,
      category: AuditCategory.account,
      author: { userId: payload.userId, username: payload.username },
      message: 'Logged in.',
      detail: payload.ip ? `From ${payload.ip}` : undefined,
    });
  }

  @OnDomainEvent(DomainEvents.accountLoginFailed)
  async onLoginFailed({ id, payload }: DomainEventEnvelope<'account.login_failed'>): Promise<void> {
    await this.audit.append({
      eventId: id,
      category: AuditCategory.account,
      author: { username: payload.username },
      message:
        payload.reason === 'unknown_user' ? 'Failed login: unknown user.' : 'Failed login: wrong password.',
      detail: payload.ip ? `From ${payload.ip}` : undefined,
    });
  }

  @OnDomainEvent(DomainEvents.accountLoggedOut)
  async onLoggedOut({ id, payload }: DomainEventEnvelope<'account.logged_out'>): Promise<void> {
    await this.audit.append({
      eventId: id,
      category: AuditCategory.account,
      author: { userId: payload.userId, username: payload.username },
      message: 'Logged out.',
    });
  }

  /**
   * Every balance change. None carries a figure: the admin totals count captures (below) only, so
   * a reservation that is refunded later never counts as spent.
   */
  @OnDomainEvent(DomainEvents.balanceChanged)
  async onBalanceChanged({ id, payload }: DomainEventEnvelope<'account.balance_changed'>): Promise<void> {
    const staff = payload.actor?.userId ? payload.actor : undefined;
    await this.audit.append({
      eventId: id,
      category: AuditCategory.credits,
      author: staff ?? { userId: payload.userId, username: payload.username },
      message: balanceMessage(payload.kind, payload.delta, payload.username, !!staff),
      detail: [payload.reason, `Balance ${payload.balance}`, payload.jobId && `Job ${payload.jobId}`]
        .filter(Boolean)
        .join(' · '),
    });
  }

  @OnDomainEvent(DomainEvents.creditsCaptured)
  async onCaptured({ id, payload }: DomainEventEnvelope<'credits.captured'>): Promise<void> {
    await this.audit.append({
      eventId: id,
      category: AuditCategory.credits,
      author: { userId: payload.userId, username: payload.username },
      message: `Spent ${payload.amount} credits.`,
      // The admin totals sum this field, taken from the ledger's event; never the message.
      credits: payload.amount,
      detail:
        [payload.tool && `Tool ${payload.tool}`, payload.jobId && `Job ${payload.jobId}`]
          .filter(Boolean)
          .join(' · ') || undefined,
    });
  }

  @OnDomainEvent(DomainEvents.accountVerified)
  async onVerified({ id, payload }: DomainEventEnvelope<'account.verified'>): Promise<void> {
    await this.audit.append({
      eventId: id,
      category: AuditCategory.account,
      author: { userId: payload.userId, username: payload.username },
      message: payload.via === 'patreon' ? 'Linked Patreon: verified.' : 'Verified by an admin.',
    });
  }

  @OnDomainEvent(DomainEvents.folderCreated)
  async onFolderCreated({ id, payload }: DomainEventEnvelope<'folder.created'>): Promise<void> {
    await this.folderEntry(id, payload, `Created folder ${payload.title}.`);
  }

  @OnDomainEvent(DomainEvents.folderDeleted)
  async onFolderDeleted({ id, payload }: DomainEventEnvelope<'folder.deleted'>): Promise<void> {
    await this.folderEntry(id, payload, `Deleted folder ${payload.title}.`);
  }

  @OnDomainEvent(DomainEvents.contentDeleted)
  async onContentDeleted({ id, payload }: DomainEventEnvelope<'content.deleted'>): Promise<void> {
    await this.folderEntry(id, payload, `Deleted ${payload.title ?? 'an item'}.`, `Item ${payload.itemId}`);
  }

  @OnDomainEvent(DomainEvents.contentDownloaded)
  async onContentDownloaded({ id, payload }: DomainEventEnvelope<'content.downloaded'>): Promise<void> {
    await this.folderEntry(
      id,
      payload,
      `Downloaded ${payload.title ?? 'an item'}.`,
      `Item ${payload.itemId}`,
    );
  }

  @OnDomainEvent(DomainEvents.jobCompleted)
  async onJobCompleted({ id, payload }: DomainEventEnvelope<'generation.completed'>): Promise<void> {
    const n = payload.items;
    const faceSwap = payload.tool === 'faceSwap';
    await this.audit.append({
      eventId: id,
      category: faceSwap ? AuditCategory.faceSwap : AuditCategory.generation,
      author: { userId: payload.userId, username: payload.username },
      message: faceSwap
        ? `Swapped ${plural(n, 'image')}.`
        : `${TOOL_LABELS[payload.tool]}: made ${plural(n, 'image')}.`,
      detail: `Job ${payload.jobId} · cost ${payload.cost}`,
      // The admin chart counts face-swapped images (spec section 9) from this field.
      swaps: faceSwap ? payload.items : undefined,
    });
  }

  @OnDomainEvent(DomainEvents.jobFailed)
  async onJobFailed({ id, payload }: DomainEventEnvelope<'generation.failed'>): Promise<void> {
    await this.audit.append({
      eventId: id,
      category: payload.tool === 'faceSwap' ? AuditCategory.faceSwap : AuditCategory.generation,
      author: { userId: payload.userId, username: payload.username },
      message: `${TOOL_LABELS[payload.tool]} failed; refunded ${plural(payload.refunded, 'coin')}.`,
      detail: `Job ${payload.jobId} · ${payload.message}`,
    });
  }

  /** Cancelled by the owner, or by staff: then the author is the staff member, who did it. */
  @OnDomainEvent(DomainEvents.jobCancelled)
  async onJobCancelled({ id, payload }: DomainEventEnvelope<'generation.cancelled'>): Promise<void> {
    const { by } = payload;
    await this.audit.append({
      eventId: id,
      category: payload.tool === 'faceSwap' ? AuditCategory.faceSwap : AuditCategory.generation,
      author: { userId: by.userId, username: by.username },
      message: by.staff
        ? `Cancelled a ${TOOL_LABELS[payload.tool]} job of ${payload.username}; refunded ${plural(payload.refunded, 'coin')}.`
        : `${TOOL_LABELS[payload.tool]} cancelled; refunded ${plural(payload.refunded, 'coin')}.`,
      detail: `Job ${payload.jobId}`,
    });
  }

  @OnDomainEvent(DomainEvents.contentTakenDown)
  async onTakenDown({ id, payload }: DomainEventEnvelope<'content.taken_down'>): Promise<void> {
    await this.audit.append({
      eventId: id,
      category: AuditCategory.folders,
      author: { username: payload.by },
      message: `${payload.mode === 'delete' ? 'Deleted' : 'Hid'} ${payload.title ?? 'an item'} of ${payload.username}.`,
      detail: `Item ${payload.itemId} · ${payload.reason}`,
    });
  }

  @OnDomainEvent(DomainEvents.badgesChanged)
  async onBadgesChanged({ id, payload }: DomainEventEnvelope<'account.badges_changed'>): Promise<void> {
    const parts = [
      payload.verified !== undefined && `verified ${payload.verified ? 'on' : 'off'}`,
      payload.early !== undefined && `early supporter ${payload.early ? 'on' : 'off'}`,
    ].filter(Boolean);
    await this.audit.append({
      eventId: id,
      category: AuditCategory.account,
      author: { username: payload.by },
      message: `Set badges of ${payload.username}: ${parts.join(', ')}.`,
    });
  }

  @OnDomainEvent(DomainEvents.operationsChanged)
  async onOperationsChanged({ id, payload }: DomainEventEnvelope<'operations.changed'>): Promise<void> {
    await this.audit.append({
      eventId: id,
      category: AuditCategory.operations,
      author: { userId: payload.userId, username: payload.username },
      message: payload.change,
    });
  }

  @OnDomainEvent(DomainEvents.emailVerified)
  async onEmailVerified({ id, payload }: DomainEventEnvelope<'account.email_verified'>): Promise<void> {
    await this.audit.append({
      eventId: id,
      category: AuditCategory.account,
      author: { userId: payload.userId, username: payload.username },
      message: 'Verified their email address.',
    });
  }

  @OnDomainEvent(DomainEvents.passwordChanged)
  async onPasswordChanged({ id, payload }: DomainEventEnvelope<'account.password_changed'>): Promise<void> {
    await this.audit.append({
      eventId: id,
      category: AuditCategory.account,
      author: { userId: payload.userId, username: payload.username },
      message: payload.via === 'reset' ? 'Reset their password by a mailed link.' : 'Changed their password.',
      detail: `${plural(payload.sessionsEnded, 'session')} ended`,
    });
  }

  @OnDomainEvent(DomainEvents.accountDeleted)
  async onAccountDeleted({ id, payload }: DomainEventEnvelope<'account.deleted'>): Promise<void> {
    // payload.username is the deleted account's pseudonym (deleted-…), never its name.
    await this.audit.anonymiseAuthor(payload.userId, payload.username);
    await this.audit.append({
      eventId: id,
      category: AuditCategory.account,
      author: { userId: payload.userId, username: payload.username },
      message: 'Deleted their account.',
      detail: `${plural(payload.items, 'item')} removed; ledger entries kept under an anonymous name: ${payload.ledgerEntries}`,
    });
  }

  @OnDomainEvent(DomainEvents.roleChanged)
  async onRoleChanged({ id, payload }: DomainEventEnvelope<'account.role_changed'>): Promise<void> {
    await this.audit.append({
      eventId: id,
      category: AuditCategory.account,
      author: payload.actor,
      message: `Changed the role of ${payload.username} from ${payload.previousRole} to ${payload.role}.`,
    });
  }

  /** Takedown steps (docs/takedown.md): the same category as the reports' own lines. */
  @OnDomainEvent(DomainEvents.accountSuspended)
  async onSuspended({ id, payload }: DomainEventEnvelope<'account.suspended'>): Promise<void> {
    await this.audit.append({
      eventId: id,
      category: 'takedown',
      author: payload.actor,
      message: `report ${payload.reportId}: account ${payload.username} suspended (${payload.reason}: ${payload.removals} confirmed removals); ${plural(payload.sessionsEnded, 'session')} ended; statement of reasons sent`,
    });
  }

  @OnDomainEvent(DomainEvents.suspensionLifted)
  async onSuspensionLifted({ id, payload }: DomainEventEnvelope<'account.suspension_lifted'>): Promise<void> {
    await this.audit.append({
      eventId: id,
      category: 'takedown',
      author: payload.actor,
      message:
        payload.via === 'appeal'
          ? `report ${payload.reportId}: a reversed appeal brought ${payload.username} below the suspension count; suspension lifted`
          : `${payload.actor.username} lifted the suspension of ${payload.username}`,
    });
  }

  @OnDomainEvent(DomainEvents.creditApprovalRequested)
  async onApprovalRequested({
    id,
    payload,
  }: DomainEventEnvelope<'credits.approval_requested'>): Promise<void> {
    await this.audit.append({
      eventId: id,
      category: AuditCategory.credits,
      author: payload.actor,
      message: `Asked another admin to approve a ${payload.kind} of ${plural(payload.amount, 'coin')} to ${payload.username}.`,
      detail: `${payload.reason} · Request ${payload.approvalId}`,
    });
  }

  @OnDomainEvent(DomainEvents.creditApprovalDecided)
  async onApprovalDecided({ id, payload }: DomainEventEnvelope<'credits.approval_decided'>): Promise<void> {
    await this.audit.append({
      eventId: id,
      category: AuditCategory.credits,
      author: payload.actor,
      message: `${payload.decision === 'approved' ? 'Approved' : 'Rejected'} the ${payload.kind} of ${plural(payload.amount, 'coin')} to ${payload.username} asked by ${payload.requestedBy.username}.`,
      detail: `Request ${payload.approvalId}`,
    });
  }

  private folderEntry(
    eventId: string,
    who: { userId: string; username: string },
    message: string,
    detail?: string,
  ) {
    return this.audit.append({
      eventId,
      category: AuditCategory.folders,
      author: { userId: who.userId, username: who.username },
      message,
      detail,
    });
  }
}

function balanceMessage(kind: LedgerKind, delta: number, username: string, byStaff: boolean): string {
  const coins = plural(Math.abs(delta), 'coin');
  switch (kind) {
    case 'purchase':
      return `Bought ${coins}.`;
    case 'reservation':
      return `Reserved ${coins} for a job.`;
    case 'refund':
      return `Refunded ${coins}.`;
    case 'reimbursement':
      return byStaff ? `Reimbursed ${coins} to ${username}.` : `Reimbursed ${coins}.`;
    case 'grant':
      return `Granted ${coins} to ${username}.`;
    case 'adjustment':
      return `Adjusted the balance of ${username} by ${delta > 0 ? '+' : '-'}${coins}.`;
    case 'capture':
      return `Confirmed a spend of ${coins}.`;
    case 'allowance':
      return `Received the free allowance of ${coins} (email verified).`;
  }
}
