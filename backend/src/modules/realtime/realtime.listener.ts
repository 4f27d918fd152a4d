import { Injectable } from '@nestjs/common';
import {
  canModerate,
  DomainEvents,
  SocketEvents,
  SocketRooms,
  type DomainEventEnvelope,
  type SafetyAction,
} from '@studio/contracts';
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

  /**
   * The moderation queue moved (an output held, released or removed): moderators' screens follow.
   * A moderator's decision also tells the output's owner what was decided and why.
   */
  @OnDomainEvent(DomainEvents.safetyDecision)
  onSafetyDecision({ payload }: DomainEventEnvelope<'safety.decision'>): void {
    if (QUEUE_ACTIONS.has(payload.action)) {
      this.publisher.toModerators(SocketEvents.moderationQueueChanged, {
        itemId: payload.itemId,
        action: payload.action,
      });
    }
    if (payload.outcome)
      this.publisher.toUser(payload.userId, SocketEvents.moderationDecided, payload.outcome);
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
    if (!canModerate(payload.role)) this.publisher.removeUserFrom(payload.userId, SocketRooms.moderators);
  }
}

/** Safety decisions that change the moderation queue. */
const QUEUE_ACTIONS: ReadonlySet<SafetyAction> = new Set(['held', 'released', 'removed']);
