import { Injectable } from '@nestjs/common';
import { DomainEvents, SocketEvents, type DomainEventEnvelope } from '@studio/contracts';
import { OnDomainEvent } from '../events/domain-event-bus';
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
}
