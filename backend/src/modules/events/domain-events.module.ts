import { BullModule } from '@nestjs/bull';
import { Global, Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { DOMAIN_EVENTS_QUEUE, DomainEventBus } from './domain-event-bus';
import { OutboxEvent, OutboxEventSchema } from './outbox-event.schema';

/** The producer side of the bus, available to every module. */
@Global()
@Module({
  imports: [
    BullModule.registerQueue({ name: DOMAIN_EVENTS_QUEUE }),
    MongooseModule.forFeature([{ name: OutboxEvent.name, schema: OutboxEventSchema }]),
  ],
  providers: [DomainEventBus],
  exports: [DomainEventBus, BullModule],
})
export class DomainEventsModule {}
