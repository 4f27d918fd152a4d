import { Injectable } from '@nestjs/common';
import { DomainEvents, SocketRooms, type DomainEventEnvelope } from '@studio/contracts';
import { OnDomainEvent } from '../events/domain-event-bus';
import { RealtimePublisher } from '../realtime/realtime.publisher';
import { SessionRevoker } from './session-revoker';

/**
 * A changed role ends all of that user's sessions: their sockets close (no more admin feed) and
 * they sign in again under the new role. Idempotent: ending ended sessions changes nothing.
 */
@Injectable()
export class SessionEndListener {
  constructor(
    private readonly sessions: SessionRevoker,
    private readonly realtime: RealtimePublisher,
  ) {}

  @OnDomainEvent(DomainEvents.roleChanged)
  async onRoleChanged({ payload, occurredAt }: DomainEventEnvelope<'account.role_changed'>): Promise<void> {
    // Sessions started after the change already carry the new role: a late event spares them.
    await this.sessions.endAllSessionsOf(payload.userId, { startedBefore: new Date(occurredAt) });
    // Sessions missing from the revoker's index (begun before it existed, or a login cut short
    // before it was recorded) are not ended above: their sockets leave the admin feed all the same.
    if (payload.role !== 'admin') this.realtime.removeUserFrom(payload.userId, SocketRooms.admins);
  }
}
