import { Injectable } from '@nestjs/common';
import { DomainEvents, type DomainEventEnvelope } from '@studio/contracts';
import { OnDomainEvent } from '../events';
import { WebhookDeliveries } from './webhook-deliveries';
import { WebhooksService } from './webhooks.service';

/**
 * Turns the domain events the app already emits (a job's end, a ledger entry) into webhook
 * deliveries. Runs in the worker; idempotent per event (each delivery's id comes from the event's).
 */
@Injectable()
export class WebhooksListener {
  constructor(
    private readonly deliveries: WebhookDeliveries,
    private readonly webhooks: WebhooksService,
  ) {}

  @OnDomainEvent(DomainEvents.jobCompleted)
  async completed(event: DomainEventEnvelope<'generation.completed'>): Promise<void> {
    const { userId, jobId, tool, cost, items } = event.payload;
    await this.deliveries.record({
      eventId: event.id,
      userId,
      type: 'job.succeeded',
      occurredAt: new Date(event.occurredAt),
      jobId,
      data: { jobId, tool, state: 'succeeded', cost, outputs: items },
    });
  }

  @OnDomainEvent(DomainEvents.jobFailed)
  async failed(event: DomainEventEnvelope<'generation.failed'>): Promise<void> {
    const { userId, jobId, tool, message, refunded } = event.payload;
    await this.deliveries.record({
      eventId: event.id,
      userId,
      type: 'job.failed',
      occurredAt: new Date(event.occurredAt),
      jobId,
      data: { jobId, tool, state: 'failed', message, refunded },
    });
  }

  @OnDomainEvent(DomainEvents.jobCancelled)
  async cancelled(event: DomainEventEnvelope<'generation.cancelled'>): Promise<void> {
    const { userId, jobId, tool, refunded, by } = event.payload;
    await this.deliveries.record({
      eventId: event.id,
      userId,
      type: 'job.cancelled',
      occurredAt: new Date(event.occurredAt),
      jobId,
      data: { jobId, tool, state: 'cancelled', refunded, by: by.staff ? 'staff' : 'owner' },
    });
  }

  @OnDomainEvent(DomainEvents.balanceChanged)
  async balanceChanged(event: DomainEventEnvelope<'account.balance_changed'>): Promise<void> {
    const { userId, balance, delta, reason, kind, entryId, tool, jobId } = event.payload;
    await this.deliveries.record({
      eventId: event.id,
      userId,
      type: 'balance.changed',
      occurredAt: new Date(event.occurredAt),
      ...(jobId ? { jobId } : {}),
      data: {
        balance,
        delta,
        reason,
        kind,
        entryId,
        ...(tool ? { tool } : {}),
        ...(jobId ? { jobId } : {}),
      },
    });
  }

  @OnDomainEvent(DomainEvents.accountDeleted)
  async accountDeleted(event: DomainEventEnvelope<'account.deleted'>): Promise<void> {
    await this.webhooks.forgetAccount(event.payload.userId);
  }
}
