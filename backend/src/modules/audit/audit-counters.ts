import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import type { Model } from 'mongoose';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { REDIS } from '../../infrastructure/redis.module';
import { PeriodicTask } from '../../common/periodic-task';
import { AuditEntry } from './audit-entry.schema';
import {
  addAt,
  contributionOf,
  emptyDailyTotals,
  type Contribution,
  type DailyTotals,
  type EntryFigures,
  type StatsRow,
  type StatsWindow,
} from './audit-stats';

const DAY_MS = 86_400_000;
/** Counters are kept per quarter hour (UTC): every zone's midnight falls on one. */
export const QUARTER_MS = 15 * 60_000;
/**
 * How far back a recount reads the log: longer than the statistics ever look back (a month, or
 * 30 days). Older days drop out when a recount replaces the generation.
 */
export const COUNTER_RETENTION_MS = 100 * DAY_MS;
/** A recount waits this long before it reads the log, so lines being written as it starts are in it. */
export const RECOUNT_SETTLE_MS = 2000;
const RECOUNT_LOCK_MS = 30 * 60_000;

/** The log lines the statistics count: those carrying a figure (credits spent, images swapped). */
export const COUNTED_LINES = { $or: [{ credits: { $gt: 0 } }, { swaps: { $gt: 0 } }] };

/**
 * The counters' format. Version 1 was summed from message text (forgeable: issue 13); its keys
 * are dropped at boot and the counters recounted once from the entries' figures. Entries written
 * before the figures existed carry none and count nothing: their text is not trusted.
 */
export const COUNTERS_VERSION = 'v2';

/** The counter a moment falls in: its UTC day (days since 1970) and quarter hour of that day. */
function bucketOf(at: number): { day: number; quarter: number } {
  const day = Math.floor(at / DAY_MS);
  return { day, quarter: Math.floor((at - day * DAY_MS) / QUARTER_MS) };
}

/**
 * Adds a line's contribution to the ready generation, and to the generation being recounted when
 * the line is newer than the recount's start (older lines are in the log the recount reads).
 * KEYS[1] state hash; ARGV: base, day, quarter, credits, swaps, createdOn ms.
 */
const RECORD_SCRIPT = `
local ready = redis.call('HGET', KEYS[1], 'ready')
local building = redis.call('HGET', KEYS[1], 'building')
local since = tonumber(redis.call('HGET', KEYS[1], 'since') or '0')
local function add(gen)
  local key = ARGV[1] .. gen .. ':' .. ARGV[2]
  if tonumber(ARGV[4]) > 0 then redis.call('HINCRBY', key, 'c' .. ARGV[3], ARGV[4]) end
  if tonumber(ARGV[5]) > 0 then redis.call('HINCRBY', key, 's' .. ARGV[3], ARGV[5]) end
end
if ready then add(ready) end
if building and tonumber(ARGV[6]) >= since then add(building) end
return 1
`;

/** Deletes a key only while it still holds the caller's token (a lock released by its owner). */
const RELEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

interface CounterState {
  ready?: string;
  building?: string;
  since?: string;
  countedAt?: string;
}

/**
 * Write-time totals for the admin statistics: credits spent and images swapped per quarter hour,
 * in Redis hashes (one per UTC day), so the statistics read about 60 small hashes instead of
 * scanning the log. The log stays the truth: when Redis has no counters (new or lost) or they are
 * older than AUDIT_STATS_RECOUNT_HOURS, a recount rebuilds them from the log into a new
 * generation while the current one keeps answering; lines written meanwhile go to both.
 */
@Injectable()
export class AuditCounters implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger(AuditCounters.name);
  /** All keys share one hash tag, so the scripts also work on a Redis Cluster. */
  private readonly base: string;
  private readonly stateKey: string;
  private readonly lockKey: string;
  /** Where version 1 (text-derived) counters lived. */
  private readonly legacyTag: string;
  private readonly recountChecks = new PeriodicTask(() => this.recountIfDue());
  private recounting?: Promise<void>;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectModel(AuditEntry.name) private readonly model: Model<AuditEntry>,
  ) {
    const tag = `${config.REDIS_PREFIX}:{audit-stats}`;
    this.legacyTag = tag;
    this.base = `${tag}:${COUNTERS_VERSION}:g`;
    this.stateKey = `${tag}:${COUNTERS_VERSION}:state`;
    this.lockKey = `${tag}:${COUNTERS_VERSION}:lock`;
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.dropLegacyCounters().catch((err: Error) =>
      this.log.warn(`old statistics counters not dropped: ${err.message}`),
    );
    await this.startCounting();
    // Checked now and every few minutes; the lock makes one process do the recount.
    this.recountChecks.start(Math.min(this.recountEveryMs() / 4, 10 * 60_000), { now: true });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.recountChecks.stop();
    await this.recounting?.catch(() => undefined);
  }

  /** Counts one written log line by its figures. */
  async record(createdOn: Date, row: EntryFigures): Promise<void> {
    const add = contributionOf(row);
    if (!add.credits && !add.swaps) return;
    const at = createdOn.getTime();
    const { day, quarter } = bucketOf(at);
    await this.redis.eval(
      RECORD_SCRIPT,
      1,
      this.stateKey,
      this.base,
      String(day),
      String(quarter),
      String(add.credits),
      String(add.swaps),
      String(at),
    );
  }

  /** Per-day totals of the window from the counters, or null while there are none to trust. */
  async read(window: StatsWindow): Promise<DailyTotals | null> {
    const [gen, countedAt] = await this.redis.hmget(this.stateKey, 'ready', 'countedAt');
    if (!gen || !countedAt) return null;
    const first = Math.floor(window.starts[0] / DAY_MS);
    const last = Math.floor((window.starts[window.starts.length - 1] - 1) / DAY_MS);
    const pipeline = this.redis.pipeline();
    for (let day = first; day <= last; day += 1) pipeline.hgetall(`${this.base}${gen}:${day}`);
    const hashes = (await pipeline.exec()) ?? [];
    const totals = emptyDailyTotals(window);
    hashes.forEach(([err, hash], k) => {
      if (err) throw err;
      const dayStart = (first + k) * DAY_MS;
      for (const [field, value] of Object.entries(hash as Record<string, string>)) {
        const at = dayStart + Number(field.slice(1)) * QUARTER_MS;
        const add: Contribution =
          field[0] === 'c' ? { credits: Number(value), swaps: 0 } : { credits: 0, swaps: Number(value) };
        addAt(window, totals, at, add);
      }
    });
    return totals;
  }

  /** Starts a recount unless one is running somewhere; resolves when this process's recount ends. */
  recount(): Promise<void> {
    this.recounting ??= this.recountOnce().finally(() => (this.recounting = undefined));
    return this.recounting;
  }

  /**
   * Where Redis has no counters, counting starts at once; they are complete (and read) at once
   * when the log has no counted line yet, otherwise after the recount that recountIfDue starts.
   */
  private async startCounting(): Promise<void> {
    if (await this.redis.hexists(this.stateKey, 'ready')) return;
    const gen = await this.redis.incr(`${this.base}seq`);
    if (!(await this.redis.hsetnx(this.stateKey, 'ready', String(gen)))) return; // another process did
    if (!(await this.model.exists(COUNTED_LINES))) {
      await this.redis.hset(this.stateKey, 'countedAt', String(Date.now()));
    }
  }

  private recountEveryMs(): number {
    return this.config.AUDIT_STATS_RECOUNT_HOURS * 3600_000;
  }

  private async recountIfDue(): Promise<void> {
    try {
      const state = (await this.redis.hgetall(this.stateKey)) as CounterState;
      const countedAt = Number(state.countedAt ?? 0);
      if (state.ready && countedAt && Date.now() - countedAt < this.recountEveryMs()) return;
      await this.recount();
    } catch (err) {
      this.log.warn(`statistics recount failed: ${(err as Error).message}`);
    }
  }

  private async recountOnce(): Promise<void> {
    const token = randomUUID();
    if (!(await this.redis.set(this.lockKey, token, 'PX', RECOUNT_LOCK_MS, 'NX'))) return;
    try {
      const gen = String(await this.redis.incr(`${this.base}seq`));
      const since = Date.now();
      await this.redis.hset(this.stateKey, { building: gen, since: String(since) });
      await new Promise((resolve) => setTimeout(resolve, RECOUNT_SETTLE_MS));
      const started = Date.now();
      const sums = await this.countLog(since);
      const pipeline = this.redis.pipeline();
      for (const [day, fields] of sums) {
        const key = `${this.base}${gen}:${day}`;
        for (const [field, value] of fields) pipeline.hincrby(key, field, value);
      }
      await pipeline.exec();
      const previous = await this.redis.hget(this.stateKey, 'ready');
      await this.redis
        .multi()
        .hset(this.stateKey, { ready: gen, countedAt: String(Date.now()) })
        .hdel(this.stateKey, 'building', 'since')
        .exec();
      if (previous) await this.dropGeneration(previous);
      this.log.log(`statistics recounted from the log in ${Date.now() - started} ms (generation ${gen})`);
    } finally {
      await this.redis.eval(RELEASE_SCRIPT, 1, this.lockKey, token);
    }
  }

  /** Sums per UTC day and quarter-hour field of every counted line written before `before`. */
  private async countLog(before: number): Promise<Map<number, Map<string, number>>> {
    const sums = new Map<number, Map<string, number>>();
    const cursor = this.model.collection.find<StatsRow>(
      {
        createdOn: { $gte: new Date(before - COUNTER_RETENTION_MS), $lt: new Date(before) },
        ...COUNTED_LINES,
      },
      { projection: { _id: 0, createdOn: 1, credits: 1, swaps: 1 } },
    );
    for await (const row of cursor) {
      const add = contributionOf(row);
      const at = new Date(row.createdOn).getTime();
      const { day, quarter } = bucketOf(at);
      let fields = sums.get(day);
      if (!fields) sums.set(day, (fields = new Map()));
      if (add.credits) fields.set(`c${quarter}`, (fields.get(`c${quarter}`) ?? 0) + add.credits);
      if (add.swaps) fields.set(`s${quarter}`, (fields.get(`s${quarter}`) ?? 0) + add.swaps);
    }
    return sums;
  }

  /** Version 1's keys (`<tag>:state`, `<tag>:g…`): never read again, so removed once. */
  private async dropLegacyCounters(): Promise<void> {
    const marks = [`${this.legacyTag}:state`, `${this.legacyTag}:gseq`];
    if (!(await this.redis.exists(...marks))) return; // none, or dropped already: no keyspace scan
    const stream = this.redis.scanStream({ match: `${this.legacyTag}:g[0-9]*`, count: 500 });
    for await (const keys of stream as AsyncIterable<string[]>) {
      if (keys.length) await this.redis.unlink(...keys);
    }
    // The marks last, so a cleanup cut short is done again at the next boot.
    await this.redis.del(...marks, `${this.legacyTag}:lock`);
  }

  private async dropGeneration(gen: string): Promise<void> {
    const stream = this.redis.scanStream({ match: `${this.base}${gen}:*`, count: 500 });
    for await (const keys of stream as AsyncIterable<string[]>) {
      if (keys.length) await this.redis.unlink(...keys);
    }
  }
}
