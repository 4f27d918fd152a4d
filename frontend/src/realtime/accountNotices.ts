import { plural } from '@studio/contracts';
import type { SocketEventPayloads } from '@studio/contracts';

/** A toast the account's own socket pushes call for. */
export interface AccountNotice {
  type: 'success' | 'info' | 'warning';
  message: string;
  description?: string;
}

/**
 * The toast for a balance change made by support or an admin (a reimbursement, a grant or an
 * adjustment), with their reason. Null for the user's own spending, refunds of failed jobs and
 * purchases (their screens say so), and whenever the server does not say what kind of change it
 * was.
 */
export function creditChangeNotice(change: SocketEventPayloads['balance.changed']): AccountNotice | null {
  const { kind, delta } = change;
  const reason = change.reason?.trim() || undefined;
  if (!delta) return null;
  if (kind === 'reimbursement' || kind === 'grant' || (kind === 'adjustment' && delta > 0)) {
    return { type: 'success', message: `Support added ${plural(delta, 'credit')}`, description: reason };
  }
  if (kind === 'allowance') {
    return {
      type: 'success',
      message: `Welcome: ${plural(delta, 'free coin')} to try the tools`,
      description: reason,
    };
  }
  if (kind === 'adjustment') {
    return { type: 'info', message: `Support removed ${plural(-delta, 'credit')}`, description: reason };
  }
  return null;
}

/**
 * The toast telling an owner what a moderator decided about one of their held outputs: released
 * (it is in the folder now) or removed, with the moderator's reason and any refund.
 */
export function moderationNotice(outcome: SocketEventPayloads['moderation.decided']): AccountNotice {
  const name = outcome.title?.trim() ? `“${outcome.title.trim()}”` : 'Your held result';
  if (outcome.decision === 'released') {
    return {
      type: 'success',
      message: `${name} was reviewed and released`,
      description: `It is in your folder now. Note from the moderator: ${outcome.note}`,
    };
  }
  const refund = outcome.refunded > 0 ? ` ${plural(outcome.refunded, 'credit')} refunded.` : '';
  return {
    type: 'warning',
    message: `${name} was removed after review`,
    description: `Reason: ${outcome.note.trim().replace(/\.+$/, '')}.${refund}`,
  };
}

/** The toast telling an owner that an admin took one of their items down, and why. */
export function takedownNotice(takedown: SocketEventPayloads['content.taken_down']): AccountNotice {
  const name = takedown.title?.trim() ? `“${takedown.title.trim()}”` : 'One of your items';
  const what = takedown.mode === 'delete' ? 'was removed by our team' : 'was hidden by our team';
  return { type: 'warning', message: `${name} ${what}`, description: `Reason: ${takedown.reason}` };
}
