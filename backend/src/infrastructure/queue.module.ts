import { BullModule } from '@nestjs/bull';
import { Module } from '@nestjs/common';
import Redis, { type RedisOptions } from 'ioredis';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { settleBullStartup } from './bull-lifecycle';
import { QUEUE_RETRY_PROCESS_MS, requestRedisOptions, waitingRedisOptions } from './outage';

settleBullStartup();

/**
 * Bull's three connections of a queue. The command connection (adding jobs, reading the line)
 * fails fast while Redis is down, as the app's own does; the blocking and event connections wait
 * (Bull requires it) but reconnect within a second, so workers resume as soon as Redis is back
 * (Bull's own default backs off to 20 s). bull-lifecycle.ts closes them with their queue.
 */
export function createBullClient(type: 'client' | 'subscriber' | 'bclient', options?: RedisOptions): Redis {
  return new Redis({ ...options, ...(type === 'client' ? requestRedisOptions : waitingRedisOptions) });
}

/** Bull queues live in Redis under this instance's prefix. */
@Module({
  imports: [
    BullModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        url: config.REDIS_URL,
        prefix: `${config.REDIS_PREFIX}:bull`,
        createClient: createBullClient,
        settings: { retryProcessDelay: QUEUE_RETRY_PROCESS_MS },
      }),
    }),
  ],
})
export class QueueModule {}
