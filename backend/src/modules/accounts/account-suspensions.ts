import { Injectable } from '@nestjs/common';
import { DomainEvents, type SuspensionReason } from '@studio/contracts';
import { SessionRevoker } from '../auth';
import { DomainEventBus } from '../events';
import { AccountsRepository, type AccountRecord } from './accounts.repository';

/** Who imposed or lifted a suspension (staff), for the audit line. */
export interface SuspensionActor {
  userId: string;
  username: string;
}

/**
 * Suspending an account and lifting it (docs/takedown.md, Suspension). The rule of when is the
 * takedown module's (it counts the confirmed removals); this owns what it means for the account:
 * the field on the record (login, sessions and API keys are refused while it is set), every
 * session ended at once (their sockets close with them), and a domain event the audit log records.
 */
@Injectable()
export class AccountSuspensions {
  constructor(
    private readonly accounts: AccountsRepository,
    private readonly sessions: SessionRevoker,
    private readonly events: DomainEventBus,
  ) {}

  /**
   * Suspends the account once (a guarded write: a second call while it is suspended changes
   * nothing and answers null) and ends all its sessions; answers the account as it was.
   */
  async suspend(
    userId: string,
    cause: { reason: SuspensionReason; reportId: string; removals: number },
    actor: SuspensionActor,
  ): Promise<AccountRecord | null> {
    const account = await this.accounts.findById(userId);
    if (!account) return null;
    const done = await this.accounts.suspend(userId, { ...cause, at: new Date(), byId: actor.userId });
    if (!done) return null;
    // After the write: a login racing it either stored its session before (ended here) or is
    // refused by the session guard, which reads the account on every request.
    const sessionsEnded = await this.sessions.endAllSessionsOf(userId);
    await this.events.publish(DomainEvents.accountSuspended, {
      userId,
      username: account.username,
      ...cause,
      sessionsEnded,
      actor,
    });
    return account;
  }

  /** Lifts the suspension if there is one; answers the account when this call lifted it. */
  async lift(
    userId: string,
    via: 'appeal' | 'admin',
    actor: SuspensionActor,
    reportId?: string,
  ): Promise<AccountRecord | null> {
    const account = await this.accounts.findById(userId);
    if (!account?.suspended || !(await this.accounts.liftSuspension(userId))) return null;
    await this.events.publish(DomainEvents.suspensionLifted, {
      userId,
      username: account.username,
      via,
      ...(reportId ? { reportId } : {}),
      actor,
    });
    return account;
  }
}
