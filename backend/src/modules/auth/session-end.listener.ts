import { Injectable } from '@nestjs/common';
import { DomainEvents, type DomainEventEnvelope } from '@studio/contracts';
import { OnDomainEvent } from '../events';
import { SessionRevoker } from './session-revoker';

/**
 * A changed role ends all of that user's sessions: their sockets close (no more admin feed) and
 * they sign in again under the new role. Idempotent: ending ended sessions changes nothing.
 * (Taking a demoted admin's sockets out of the admin room is realtime's own listener's work.)
 */
@Injectable()
export class SessionEndListener {
  constructor(private readonly sessions: SessionRevoker) {}

  @OnDomainEvent(DomainEvents.roleChanged)
  async onRoleChanged({ payload, occurredAt }: DomainEventEnvelope<'account.role_changed'>): Promise<void> {
    // Sessions started after the change already carry the new role: a late event spares them.
    await this.sessions.endAllSessionsOf(payload.userId, { startedBefore: new Date(occurredAt) });
  }
}
