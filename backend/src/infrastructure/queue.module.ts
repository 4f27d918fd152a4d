import { BullModule } from '@nestjs/bull';
import { Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { settleBullStartup } from './bull-lifecycle';

settleBullStartup();

/** Bull queues live in Redis under this instance's prefix. */
@Module({
  imports: [
    BullModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        url: config.REDIS_URL,
        prefix: `${config.REDIS_PREFIX}:bull`,
      }),
    }),
  ],
})
export class QueueModule {}
