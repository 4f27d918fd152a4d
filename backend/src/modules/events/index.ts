/**
 * The events module's face: the durable domain event bus (outbox, then a Bull job per event) and
 * the decorator of its consumers.
 *
 * At the bottom of the tree: it imports no other module. Modules below one that must react to
 * what they do publish a domain event here, and the one above handles it (@OnDomainEvent), so no
 * module has to import one that imports it back.
 */
export { DOMAIN_EVENTS_QUEUE, DomainEventBus, OnDomainEvent } from './domain-event-bus';
export { DomainEventsModule } from './domain-events.module';
export { DomainEventsProcessor } from './domain-events.processor';
