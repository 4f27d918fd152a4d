import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { JsonBodyGuard } from '../../common/request-origin';
import { LiveSessions } from './live-sessions';
import { ThrottlerModule } from '@nestjs/throttler';
import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import type Redis from 'ioredis';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { closeRedis, REDIS } from '../../infrastructure/redis.module';
import { rateThrottlers } from './rate-limit';
import { SessionRevokerModule } from './session-revoker';
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
    await closeRedis(this.redis);
  }
}

/**
 * Rate limits (the budgets of rate-limit.ts: login/register per address, the others per user),
 * counted in Redis so that they hold across API instances. Imported by the worker app too: the controllers of shared modules
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
        throttlers: rateThrottlers(config),
        storage: new ThrottlerStorageRedisService(redis),
      }),
    }),
  ],
  exports: [ThrottlerModule],
})
export class RateLimitModule {}

/** Sessions (Redis-backed cookie, ended by SessionRevoker), the global session/role guard, the rate limits. */
@Global()
@Module({
  imports: [RateLimitModule, SessionRevokerModule],
  providers: [
    {
      provide: SESSION_MIDDLEWARE,
      inject: [APP_CONFIG, REDIS],
      useFactory: (config: AppConfig, redis: Redis) => createSessionMiddleware(config, redis),
    },
    LiveSessions,
    { provide: APP_GUARD, useClass: SessionGuard },
    { provide: APP_GUARD, useClass: JsonBodyGuard },
  ],
  exports: [SESSION_MIDDLEWARE, LiveSessions],
})
export class AuthModule {}
