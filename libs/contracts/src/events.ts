import type { ModerationOutcome, SafetyAction, SafetyReason } from './age-assurance';
import type { FolderSummary } from './api';
import type { LogEntry } from './audit';
import type { LedgerKind } from './billing';
import type { ContentItem, InpaintEntry } from './content';
import type { JobSocketPayloads } from './jobs';
import type { JobTool } from './tools';
import type { OperationsState } from './operations';
import type { Role } from './roles';
import type { SuspensionReason } from './account';

/** Domain events: what happened in the backend, consumed by audit, realtime and later billing. */
export const DomainEvents = {
  accountRegistered: 'account.registered',
  accountLoggedIn: 'account.logged_in',
  accountLoginFailed: 'account.login_failed',
  accountLoggedOut: 'account.logged_out',
  balanceChanged: 'account.balance_changed',
  creditsCaptured: 'credits.captured',
  accountVerified: 'account.verified',
  folderCreated: 'folder.created',
  folderDeleted: 'folder.deleted',
  contentDeleted: 'content.deleted',
  contentDownloaded: 'content.downloaded',
  jobCompleted: 'generation.completed',
  jobFailed: 'generation.failed',
  jobCancelled: 'generation.cancelled',
  operationsChanged: 'operations.changed',
  badgesChanged: 'account.badges_changed',
  contentTakenDown: 'content.taken_down',
  roleChanged: 'account.role_changed',
  creditApprovalRequested: 'credits.approval_requested',
  creditApprovalDecided: 'credits.approval_decided',
  emailVerified: 'account.email_verified',
  passwordChanged: 'account.password_changed',
  accountDeleted: 'account.deleted',
  safetyDecision: 'safety.decision',
  accountSuspended: 'account.suspended',
  suspensionLifted: 'account.suspension_lifted',
} as const;
export type DomainEventName = (typeof DomainEvents)[keyof typeof DomainEvents];

export interface AccountRef {
  userId: string;
  username: string;
}

export interface DomainEventPayloads {
  'account.registered': AccountRef & { role: Role };
  'account.logged_in': AccountRef & { ip?: string };
  'account.login_failed': { username: string; ip?: string; reason: 'unknown_user' | 'bad_password' };
  'account.logged_out': AccountRef;
  'account.balance_changed': AccountRef & {
    balance: number;
    delta: number;
    reason: string;
    kind: LedgerKind;
    entryId: string;
    /** Who made the change when it was not the user (support, admin, payment provider). */
    actor?: { userId?: string; username: string };
    tool?: string;
    jobId?: string;
  };
  /** A reservation became a final spend (the job succeeded). */
  'credits.captured': AccountRef & { amount: number; tool?: string; jobId?: string; entryId: string };
  'account.verified': AccountRef & { via: 'patreon' | 'admin' };
  'folder.created': AccountRef & { folderId: string; title: string };
  'folder.deleted': AccountRef & { folderId: string; title: string };
  'content.deleted': AccountRef & {
    itemId: string;
    title?: string;
    storageKey: string;
    /** The job that made the item: its inputs go with its last output. */
    jobId?: string;
  };
  'content.downloaded': AccountRef & { itemId: string; title?: string };
  'generation.completed': AccountRef & { jobId: string; tool: JobTool; items: number; cost: number };
  'generation.failed': AccountRef & { jobId: string; tool: JobTool; message: string; refunded: number };
  /** The owner or a member of staff (`by`, audited) cancelled an open job; `refunded` came back. */
  'generation.cancelled': AccountRef & {
    jobId: string;
    tool: JobTool;
    refunded: number;
    by: { userId: string; username: string; staff: boolean };
  };
  /** An admin changed a maintenance notice or a feature flag. */
  'operations.changed': AccountRef & { change: string };
  /** An admin hid or deleted a user's item. */
  'content.taken_down': AccountRef & {
    itemId: string;
    title?: string;
    reason: string;
    mode: 'hide' | 'delete';
    by: string;
    /** The job that made the item: its inputs are removed with it. */
    jobId?: string;
  };
  /** An admin set a user's badges. */
  'account.badges_changed': AccountRef & { verified?: boolean; early?: boolean; by: string };
  /** An admin changed a user's role: that user's sessions end (realtime/auth listen). */
  'account.role_changed': AccountRef & {
    role: Role;
    previousRole: Role;
    actor: { userId: string; username: string };
  };
  /** A large grant or adjustment waits for a second admin (CREDIT_APPROVAL_THRESHOLD). */
  'credits.approval_requested': AccountRef & {
    approvalId: string;
    kind: 'grant' | 'adjustment';
    amount: number;
    reason: string;
    actor: { userId: string; username: string };
  };
  /** Another admin approved (the credit is applied once) or rejected a waiting grant. */
  'credits.approval_decided': AccountRef & {
    approvalId: string;
    kind: 'grant' | 'adjustment';
    amount: number;
    decision: 'approved' | 'rejected';
    requestedBy: { userId: string; username: string };
    actor: { userId: string; username: string };
  };
  /** The owner opened the link mailed at registration. */
  'account.email_verified': AccountRef & { clientIp?: string };
  /** Changed by the owner (`change`, other sessions end) or by a mailed reset link (`reset`, all end). */
  'account.password_changed': AccountRef & { via: 'change' | 'reset'; sessionsEnded: number };
  /** The owner deleted the account: content removed, ledger entries kept under an anonymous name. */
  /** `username` is the pseudonym (deleted-…) the account's ledger entries now carry, not its name. */
  'account.deleted': AccountRef & { items: number; ledgerEntries: number };
  /** Repeated confirmed removals suspended the account (docs/takedown.md): its sessions ended. */
  'account.suspended': AccountRef & {
    reason: SuspensionReason;
    reportId: string;
    removals: number;
    sessionsEnded: number;
    /** The staff member whose removal decision reached the count. */
    actor: { userId: string; username: string };
  };
  /** A suspension was lifted: by a reversed appeal (the count fell below the setting) or by an admin. */
  'account.suspension_lifted': AccountRef & {
    via: 'appeal' | 'admin';
    reportId?: string;
    actor: { userId: string; username: string };
  };
  /** A refusal, withheld or held output, or a moderator's decision, with its reason code. */
  'safety.decision': AccountRef & {
    action: SafetyAction;
    reason: SafetyReason;
    tool?: JobTool;
    jobId?: string;
    itemId?: string;
    /** Staff who decided (moderation). */
    by?: AccountRef;
    detail?: string;
    /** A moderator's decision: what the owner is told (their reason, the refund). */
    outcome?: ModerationOutcome;
  };
}

/** An event as it travels: a unique id (idempotency key for every consumer) and its time. */
export interface DomainEventEnvelope<N extends DomainEventName = DomainEventName> {
  id: string;
  name: N;
  occurredAt: string;
  payload: DomainEventPayloads[N];
}

/** Socket.IO events pushed by the realtime gateway. */
export const SocketEvents = {
  /** Sent by the server once the socket has joined its rooms. */
  ready: 'session.ready',
  balanceChanged: 'balance.changed',
  auditAppended: 'audit.appended',
  /** To an item's owner: an admin hid or deleted it, and why. */
  contentTakenDown: 'content.taken_down',
  /** To a folder's owner: items came or went, a batch's status moved, or it was renamed or deleted. */
  folderChanged: 'folder.changed',
  /** To an output's owner: a moderator released or removed it, why, and any refund. */
  moderationDecided: 'moderation.decided',
  /** To moderators: the queue of held outputs changed (an output held, released or removed). */
  moderationQueueChanged: 'moderation.queue_changed',
} as const;

/**
 * What changed in one folder, so open folder pages and the profile's counts follow without a
 * reload. Screens also read the folder again when their socket (re)joins (`session.ready`).
 */
export interface FolderChange {
  folderId: string;
  /** The folder as the profile lists it now (title, visible items); absent once it is deleted. */
  folder?: FolderSummary;
  /** Items stored in it (a job's results); a repeat of one already shown is the same item. */
  added?: ContentItem[];
  /** Ids of items removed from it. */
  removed?: string[];
  /** A bulk inpaint entry whose status line changed. */
  batch?: InpaintEntry;
  /** The folder was deleted. */
  deleted?: true;
}

export interface SocketEventPayloads extends JobSocketPayloads {
  'operations.changed': OperationsState;
  'content.taken_down': { itemId: string; title?: string; reason: string; mode: 'hide' | 'delete' };
  'folder.changed': FolderChange;
  'moderation.decided': ModerationOutcome;
  'moderation.queue_changed': { itemId?: string; action: SafetyAction };
  'session.ready': { username: string };
  'balance.changed': {
    balance: number;
    delta: number;
    reason: string;
    /**
     * What changed the balance (the ledger entry's kind). Optional: screens greet support's
     * reimbursements and grants with a toast only when the server sends it.
     */
    kind?: LedgerKind;
  };
  'audit.appended': LogEntry;
}

/**
 * Socket.IO rooms: one per user, one per login session (ended together), one for admins, one for
 * those who moderate (moderators and admins).
 */
export const SocketRooms = {
  user: (userId: string) => `user:${userId}`,
  session: (sessionId: string) => `session:${sessionId}`,
  admins: 'admins',
  moderators: 'moderators',
} as const;
