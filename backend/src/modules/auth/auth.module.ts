import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import type { Request } from 'express';
import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import type Redis from 'ioredis';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { REDIS } from '../../infrastructure/redis.module';
import { createSessionMiddleware, SESSION_MIDDLEWARE } from './session';
import { SessionGuard } from './session.guard';

const THROTTLE_REDIS = Symbol('THROTTLE_REDIS');

/** Rate-limit counters under this instance's key prefix, on their own connection. */
@Global()
@Module({
  providers: [
    {
      provide: THROTTLE_REDIS,
      inject: [APP_CONFIG, REDIS],
      useFactory: (config: AppConfig, redis: Redis) =>
        redis.duplicate({ keyPrefix: `${config.REDIS_PREFIX}:throttle:` }),
    },
  ],
  exports: [THROTTLE_REDIS],
})
export class ThrottleRedisModule implements OnApplicationShutdown {
  constructor(@Inject(THROTTLE_REDIS) private readonly redis: Redis) {}

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

/**
 * Rate limits (login/register per address, tool requests per user), counted in Redis so that they
 * hold across API instances. Imported by the worker app too: the controllers of shared modules
 * name the throttler guard.
 */
@Global()
@Module({
  imports: [
    ThrottleRedisModule,
    ThrottlerModule.forRootAsync({
      imports: [ThrottleRedisModule],
      inject: [APP_CONFIG, THROTTLE_REDIS],
      useFactory: (config: AppConfig, redis: Redis) => ({
        throttlers: [
          { name: 'auth', ttl: 60_000, limit: config.AUTH_RATE_LIMIT_PER_MINUTE },
          {
            // Tool requests, counted per signed-in user (several users may share an address).
            name: 'jobs',
            ttl: 60_000,
            limit: config.JOB_RATE_LIMIT_PER_MINUTE,
            getTracker: (req: Record<string, unknown>) => {
              const request = req as unknown as Request;
              return request.session?.userId ?? request.ip ?? 'unknown';
            },
          },
        ],
        storage: new ThrottlerStorageRedisService(redis),
      }),
    }),
  ],
  exports: [ThrottlerModule],
})
export class RateLimitModule {}

/** Sessions (Redis-backed cookie), the global session/role guard, and the rate limits. */
@Global()
@Module({
  imports: [RateLimitModule],
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
