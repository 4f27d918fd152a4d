import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type Redis from 'ioredis';
import { REPORT_LIMITS } from '@studio/contracts';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { REDIS } from '../../infrastructure/redis.module';
import { mailboxOf } from '../mail';

const DAY_MS = 86_400_000;

/**
 * Drops the receipts older than the window, and adds this one only while fewer than the limit
 * remain: one step, so concurrent reports (from any number of API instances) cannot pass together.
 * Timed by Redis's own clock (TIME), not the calling instance's: instances whose clocks disagree
 * still share one window (one a day ahead would otherwise drop every receipt of the last day).
 */
const TAKE = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local window = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZSCORE', KEYS[1], ARGV[3]) then return 1 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], window)
return 1
`;

/**
 * Receipts of the public report form per recipient: at most REPORT_LIMITS.receiptsPerAddressPerDay
 * over a rolling 24 h to one mailbox (mailboxOf: `a+1@gmail.com` and `a.@gmail.com` are one),
 * whoever sends the reports, so the form cannot be used to mail a stranger again and again. The
 * count is a sorted set of report ids in Redis (kept across restarts of the app), keyed by a hash
 * of the mailbox.
 */
@Injectable()
export class ReceiptLimit {
  private readonly prefix: string;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.prefix = `${config.REDIS_PREFIX}:report-receipts`;
  }

  /**
   * True when a receipt for `reportId` may be mailed to `email` now (and counts it). Rejects when
   * Redis does not answer or refuses the command: the caller decides what a report without a count
   * gets.
   */
  async take(email: string, reportId: string): Promise<boolean> {
    const mailbox = createHash('sha256').update(mailboxOf(email)).digest('hex');
    const taken = await this.redis.eval(
      TAKE,
      1,
      `${this.prefix}:${mailbox}`,
      String(DAY_MS),
      String(REPORT_LIMITS.receiptsPerAddressPerDay),
      reportId,
    );
    return taken === 1;
  }
}
