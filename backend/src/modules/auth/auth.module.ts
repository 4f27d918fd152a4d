import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import type Redis from 'ioredis';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { REDIS } from '../../infrastructure/redis.module';
import { createSessionMiddleware, SESSION_MIDDLEWARE } from './session';
import { SessionGuard } from './session.guard';

/**
 * Sessions (Redis-backed cookie), the global session/role guard, and rate limits kept in Redis so
 * that they hold across API instances.
 */
@Global()
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [APP_CONFIG, REDIS],
      useFactory: (config: AppConfig, redis: Redis) => ({
        throttlers: [{ name: 'auth', ttl: 60_000, limit: config.AUTH_RATE_LIMIT_PER_MINUTE }],
        // Own key prefix, so instances sharing a Redis keep separate counters.
        storage: new ThrottlerStorageRedisService(redis.duplicate({ keyPrefix: `${config.REDIS_PREFIX}:throttle:` })),
      }),
    }),
  ],
  providers: [
    {
      provide: SESSION_MIDDLEWARE,
      inject: [APP_CONFIG, REDIS],
      useFactory: (config: AppConfig, redis: Redis) => createSessionMiddleware(config, redis),
    },
    { provide: APP_GUARD, useClass: SessionGuard },
  ],
  exports: [SESSION_MIDDLEWARE],
})
export class AuthModule {}
