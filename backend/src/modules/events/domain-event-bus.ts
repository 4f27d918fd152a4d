import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { OnEvent } from '@nestjs/event-emitter';
import type { Queue } from 'bull';
import { Model } from 'mongoose';
import { randomUUID } from 'node:crypto';
import type { DomainEventEnvelope, DomainEventName, DomainEventPayloads } from '@studio/contracts';
import { OutboxEvent } from './outbox-event.schema';
import { PeriodicTask } from '../../common/periodic-task';

export const DOMAIN_EVENTS_QUEUE = 'domain-events';
/** An undispatched event older than this is considered stranded and sent again. */
const RELAY_AFTER_MS = 10_000;
const RELAY_EVERY_MS = 5_000;

const QUEUE_OPTIONS = (id: string) => ({
  jobId: id,
  attempts: 8,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: 1000,
  removeOnFail: 5000,
});

/**
 * Publishes domain events durably: outbox row first, then a Bull job whose id is the event id
 * (so a repeated hand-off is a no-op). Consumers run in the worker and must be idempotent per id.
 */
@Injectable()
export class DomainEventBus implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(DomainEventBus.name);
  private readonly relay = new PeriodicTask(() =>
    this.relayStranded().then(
      () => undefined,
      (err: Error) => this.logger.warn(`relay failed: ${err.message}`),
    ),
  );

  constructor(
    @InjectModel(OutboxEvent.name) private readonly outbox: Model<OutboxEvent>,
    @InjectQueue(DOMAIN_EVENTS_QUEUE) private readonly queue: Queue<DomainEventEnvelope>,
  ) {}

  /**
   * Records and sends an event. Give `id` when the event stands for something with an identity of
   * its own (a ledger entry): publishing it again is then a no-op.
   */
  async publish<N extends DomainEventName>(
    name: N,
    payload: DomainEventPayloads[N],
    id: string = randomUUID(),
  ): Promise<DomainEventEnvelope<N>> {
    const envelope: DomainEventEnvelope<N> = { id, name, occurredAt: new Date().toISOString(), payload };
    try {
      await this.outbox.create({
        _id: id,
        name,
        payload,
        occurredAt: envelope.occurredAt,
      });
    } catch (err) {
      if ((err as { code?: number }).code === 11000) return envelope; // already published
      throw err;
    }
    try {
      await this.dispatch(envelope);
    } catch (err) {
      // The relay sends it later; the caller's action itself has succeeded.
      this.logger.warn(`event ${envelope.id} (${name}) left for the relay: ${(err as Error).message}`);
    }
    return envelope;
  }

  /**
   * Sends an event straight to the queue, without the outbox row. Only for callers whose own
   * records already say what is still to be announced: they call this before recording that the
   * announcement is made, and call it again after a crash (the ledger announces an entry before
   * marking it applied; a job's end is announced before its final state is written). The id is
   * the queue job id, so a repeated call is a no-op. Throws when the queue cannot take it.
   */
  async publishDirect<N extends DomainEventName>(
    name: N,
    payload: DomainEventPayloads[N],
    id: string,
  ): Promise<DomainEventEnvelope<N>> {
    const envelope: DomainEventEnvelope<N> = { id, name, occurredAt: new Date().toISOString(), payload };
    await this.queue.add(envelope.name, envelope, QUEUE_OPTIONS(envelope.id));
    return envelope;
  }

  /** Sends stranded events again; returns how many. Runs on a timer and at boot. */
  async relayStranded(olderThanMs = RELAY_AFTER_MS): Promise<number> {
    const cutoff = new Date(Date.now() - olderThanMs);
    const stranded = await this.outbox
      .find({ occurredAt: { $lte: cutoff } })
      .limit(500)
      .lean();
    for (const row of stranded) {
      await this.dispatch({
        id: row._id,
        name: row.name as DomainEventName,
        occurredAt: new Date(row.occurredAt).toISOString(),
        payload: row.payload as never,
      });
    }
    return stranded.length;
  }

  onModuleInit(): void {
    this.relay.start(RELAY_EVERY_MS);
  }

  async onModuleDestroy(): Promise<void> {
    await this.relay.stop();
  }

  private async dispatch(envelope: DomainEventEnvelope): Promise<void> {
    await this.queue.add(envelope.name, envelope, QUEUE_OPTIONS(envelope.id));
    // The queue holds it now (under the same id). Dropping the row keeps the relay's scan small;
    // a later publish under the same id is harmless, since consumers are idempotent per id.
    await this.outbox.deleteOne({ _id: envelope.id });
  }
}

/**
 * Marks a method as a consumer of a domain event. It receives the envelope; errors are not
 * swallowed, so the queue retries the event with backoff.
 */
export const OnDomainEvent = (name: DomainEventName) => OnEvent(name, { suppressErrors: false });
