import { Injectable } from '@nestjs/common';
import { DomainEvents, SocketEvents, SocketRooms, type DomainEventEnvelope } from '@studio/contracts';
import { OnDomainEvent } from '../events';
import { RealtimePublisher } from './realtime.publisher';

/** Turns domain events into pushes to the browser. */
@Injectable()
export class RealtimeListener {
  constructor(private readonly publisher: RealtimePublisher) {}

  @OnDomainEvent(DomainEvents.contentTakenDown)
  onTakenDown({ payload }: DomainEventEnvelope<'content.taken_down'>): void {
    const { itemId, title, reason, mode } = payload;
    this.publisher.toUser(payload.userId, SocketEvents.contentTakenDown, { itemId, title, reason, mode });
  }

  @OnDomainEvent(DomainEvents.balanceChanged)
  onBalanceChanged({ payload }: DomainEventEnvelope<'account.balance_changed'>): void {
    this.publisher.toUser(payload.userId, SocketEvents.balanceChanged, {
      balance: payload.balance,
      delta: payload.delta,
      reason: payload.reason,
      kind: payload.kind,
    });
  }

  /**
   * A user who is no longer admin leaves the admin room (the audit feed) on every socket. Auth's
   * listener of the same event ends their sessions, which closes those sockets; this also reaches
   * sockets of sessions missing from auth's index (begun before it existed, or a login cut short
   * before it was recorded), which that cannot end. Idempotent.
   */
  @OnDomainEvent(DomainEvents.roleChanged)
  onRoleChanged({ payload }: DomainEventEnvelope<'account.role_changed'>): void {
    if (payload.role !== 'admin') this.publisher.removeUserFrom(payload.userId, SocketRooms.admins);
  }
}
