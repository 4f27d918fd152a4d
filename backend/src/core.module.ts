import { DynamicModule, Module } from '@nestjs/common';
import type { AppConfig } from './config/app-config';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './infrastructure/database.module';
import { LoggingModule } from './infrastructure/logging.module';
import { QueueModule } from './infrastructure/queue.module';
import { RedisModule } from './infrastructure/redis.module';
import { DomainEventsModule } from './modules/events';
import { StorageModule } from './modules/storage';

/** What both the API and the worker need: config, logs, database, Redis, queues, the event bus, storage. */
@Module({})
export class CoreModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: CoreModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggingModule,
        DatabaseModule,
        RedisModule,
        QueueModule,
        EventEmitterModule.forRoot({ wildcard: false }),
        DomainEventsModule,
        StorageModule,
      ],
    };
  }
}
