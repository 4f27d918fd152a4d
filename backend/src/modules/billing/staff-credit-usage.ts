import { Inject, Injectable } from '@nestjs/common';
import type Redis from 'ioredis';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { REDIS } from '../../infrastructure/redis.module';

/** Usage keys live a little past their UTC day, so a late release still finds its counter. */
const TTL_SECONDS = 2 * 86_400;

/**
 * Counts, check and add in one step: a replay of the same operation (its marker exists) counts
 * nothing; otherwise the amount is added only if the day stays within the limit.
 */
const RESERVE = `
if redis.call('EXISTS', KEYS[2]) == 1 then
  return {1, tonumber(redis.call('GET', KEYS[1]) or '0')}
end
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local amount = tonumber(ARGV[1])
if used + amount > tonumber(ARGV[2]) then return {0, used} end
redis.call('INCRBY', KEYS[1], amount)
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('SET', KEYS[2], ARGV[1], 'EX', ARGV[3])
return {1, used + amount}
`;

/** Gives back what one operation counted (its marker says how much), once. */
const RELEASE = `
local counted = redis.call('GET', KEYS[2])
if not counted then return 0 end
redis.call('DEL', KEYS[2])
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('DECRBY', KEYS[1], counted) end
return 1
`;

/**
 * The same for a rolling window: a sorted set of the actor's operations scored by time, each
 * member `<operation>|<amount>`. Entries older than the window are dropped, the rest summed; the
 * amount is added only if the sum stays within the limit. A replay (the member exists) counts nothing.
 */
const RESERVE_WINDOW = `
local now = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[4]))
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return {1, 0} end
local used = 0
for _, member in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  used = used + tonumber(string.match(member, '|(%d+)$'))
end
local amount = tonumber(string.match(ARGV[1], '|(%d+)$'))
if used + amount > tonumber(ARGV[2]) then return {0, used} end
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return {1, used + amount}
`;

export interface UsageSlot {
  /** The UTC day counted against, YYYY-MM-DD. */
  day: string;
  /** The operation's own key (its idempotency key): counted at most once. */
  operation: string;
}

/**
 * Credits each staff member gave per UTC day, in Redis keyed by actor and day: structured data,
 * atomic under concurrent requests from any number of API instances.
 */
@Injectable()
export class StaffCreditUsage {
  private readonly prefix: string;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.prefix = `${config.REDIS_PREFIX}:staff-credits`;
  }

  static today(now = new Date()): string {
    return now.toISOString().slice(0, 10);
  }

  /** Adds `amount` to the actor's day if it stays within `limit`; answers what the day holds. */
  async reserve(
    actorId: string,
    slot: UsageSlot,
    amount: number,
    limit: number,
  ): Promise<{ ok: boolean; used: number }> {
    const [ok, used] = (await this.redis.eval(
      RESERVE,
      2,
      ...this.keys(actorId, slot),
      String(amount),
      String(limit),
      String(TTL_SECONDS),
    )) as [number, number];
    return { ok: ok === 1, used };
  }

  /** Undoes a reservation whose credit did not happen (refused, rejected, failed). */
  async release(actorId: string, slot: UsageSlot): Promise<void> {
    await this.redis.eval(RELEASE, 2, ...this.keys(actorId, slot));
  }

  /**
   * Adds `amount` to what the actor gave over the last `windowMs` (a rolling window, not a
   * calendar day) if the sum stays within `limit`; atomic across requests and API instances.
   */
  async reserveWindow(
    actorId: string,
    operation: string,
    amount: number,
    limit: number,
    windowMs: number,
    now = Date.now(),
  ): Promise<{ ok: boolean; used: number }> {
    const [ok, used] = (await this.redis.eval(
      RESERVE_WINDOW,
      1,
      this.windowKey(actorId),
      `${operation}|${amount}`,
      String(limit),
      String(now),
      String(windowMs),
    )) as [number, number];
    return { ok: ok === 1, used };
  }

  /** Undoes a window reservation whose credit did not happen. */
  async releaseWindow(actorId: string, operation: string, amount: number): Promise<void> {
    await this.redis.zrem(this.windowKey(actorId), `${operation}|${amount}`);
  }

  private windowKey(actorId: string): string {
    return `${this.prefix}:{${actorId}}:window`;
  }

  private keys(actorId: string, slot: UsageSlot): [string, string] {
    // One hash tag per actor, so both keys of a script sit on one Redis Cluster slot.
    const tag = `{${actorId}}`;
    return [`${this.prefix}:${tag}:day:${slot.day}`, `${this.prefix}:${tag}:op:${slot.operation}`];
  }
}
