import { Process, Processor } from '@nestjs/bull';
import { EventEmitter2 } from '@nestjs/event-emitter';
import type { Job } from 'bull';
import type { DomainEventEnvelope } from '@studio/contracts';
import { DOMAIN_EVENTS_QUEUE } from './domain-event-bus';

/** Worker side of the bus: hands each queued event to its @OnDomainEvent consumers. */
@Processor(DOMAIN_EVENTS_QUEUE)
export class DomainEventsProcessor {
  constructor(private readonly emitter: EventEmitter2) {}

  @Process({ name: '*', concurrency: 4 })
  async handle(job: Job<DomainEventEnvelope>): Promise<void> {
    await this.emitter.emitAsync(job.data.name, job.data);
  }
}
