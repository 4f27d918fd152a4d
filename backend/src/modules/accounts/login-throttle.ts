import { HttpException, HttpStatus, Inject, Injectable } from '@nestjs/common';
import type Redis from 'ioredis';
import { Messages } from '@studio/contracts';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { REDIS } from '../../infrastructure/redis.module';

/**
 * One attempt on an account, decided atomically (so parallel guesses from many addresses are
 * counted as they start, not after their slow password check). Free while failures plus attempts
 * in flight stay below ARGV[2]; past that, one attempt per delay, the delay doubling from ARGV[3]
 * ms up to ARGV[4] ms with every further attempt. Answers 0 (go on) or the milliseconds to wait.
 * An attempt refused here checks no password and counts nothing, so it does not lengthen the wait.
 */
const TAKE = `
local now = tonumber(ARGV[1])
local failures = tonumber(redis.call('HGET', KEYS[1], 'f') or '0')
local pending = tonumber(redis.call('HGET', KEYS[1], 'p') or '0')
local tried = failures + pending
if tried >= tonumber(ARGV[2]) then
  local nextAt = tonumber(redis.call('HGET', KEYS[1], 'n') or '0')
  if now < nextAt then return nextAt - now end
  local delay = math.min(tonumber(ARGV[3]) * 2 ^ math.min(tried - tonumber(ARGV[2]), 30), tonumber(ARGV[4]))
  redis.call('HSET', KEYS[1], 'n', now + delay)
end
redis.call('HINCRBY', KEYS[1], 'p', 1)
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 0
`;

/** The attempt ended: a failure counts; a success forgets the account's failures. */
const FINISH = `
if ARGV[1] == '0' then return redis.call('DEL', KEYS[1]) end
if tonumber(redis.call('HGET', KEYS[1], 'p') or '0') > 0 then redis.call('HINCRBY', KEYS[1], 'p', -1) end
redis.call('HINCRBY', KEYS[1], 'f', 1)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`;

/**
 * Login throttling per account name (beside the per-address 'auth' budget), so guesses spread over
 * many addresses still slow down: after LOGIN_FREE_FAILURES failed attempts, one attempt per
 * delay that doubles from LOGIN_DELAY_BASE_MS to LOGIN_DELAY_MAX_SECONDS. No lockout: the owner
 * waits at most the cap, and the failures are forgotten after LOGIN_FAILURE_WINDOW_MINUTES
 * without an attempt or at the next successful login. Keyed by the lower-cased name, existing or
 * not, so the answers say nothing about which names exist.
 */
@Injectable()
export class LoginThrottle {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Takes an attempt, or throws 429 saying how long to wait. */
  async begin(username: string): Promise<void> {
    const wait = Number(
      await this.redis.eval(
        TAKE,
        1,
        this.key(username),
        String(Date.now()),
        String(this.config.LOGIN_FREE_FAILURES),
        String(this.config.LOGIN_DELAY_BASE_MS),
        String(this.config.LOGIN_DELAY_MAX_SECONDS * 1000),
        String(this.windowMs),
      ),
    );
    if (wait > 0) {
      const seconds = Math.ceil(wait / 1000);
      throw new HttpException(
        { message: Messages.loginDelayed(seconds), extra: { retryAfterSeconds: seconds } },
        HttpStatus.TOO_MANY_REQUESTS,
      );
    }
  }

  async end(username: string, failed: boolean): Promise<void> {
    await this.redis.eval(FINISH, 1, this.key(username), failed ? '1' : '0', String(this.windowMs));
  }

  private get windowMs(): number {
    return this.config.LOGIN_FAILURE_WINDOW_MINUTES * 60_000;
  }

  private key(username: string): string {
    return `${this.config.REDIS_PREFIX}:login-throttle:${username.toLowerCase()}`;
  }
}
