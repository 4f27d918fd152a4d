import { Injectable } from '@nestjs/common';
import { DomainEvents, type DomainEventPayloads } from '@studio/contracts';
import { DomainEventBus } from '../events';

/**
 * Every refusal, withheld or held output and moderation decision, with its reason code: one domain
 * event, which the audit log writes as a line and the metrics count.
 */
@Injectable()
export class SafetyLog {
  constructor(private readonly events: DomainEventBus) {}

  async record(decision: DomainEventPayloads['safety.decision']): Promise<void> {
    await this.events.publish(DomainEvents.safetyDecision, decision);
  }
}
