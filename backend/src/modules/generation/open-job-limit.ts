import { HttpException, HttpStatus, Inject, Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type Redis from 'ioredis';
import { Model, Types } from 'mongoose';
import { isOpenJobState, JobMessages } from '@studio/contracts';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { REDIS } from '../../infrastructure/redis.module';
import { Job } from './job.schema';

/** A counted job not recorded after this long was never recorded (its request died): forgotten. */
export const UNRECORDED_GRACE_MS = 10 * 60_000;
/** A user's set expires this long after their last request (no job stays open that long). */
const SET_TTL_SECONDS = 30 * 24 * 3600;

/**
 * Adds the new ids when they fit under the limit, in one step, so two requests at once cannot both
 * pass on the same count. KEYS[1] the user's set (job id -> ms counted). ARGV: limit, now, TTL, ids.
 * Returns -1 when added, else how many the set holds.
 */
const ADMIT_SCRIPT = `
local open = redis.call('ZCARD', KEYS[1])
if open + #ARGV - 3 > tonumber(ARGV[1]) then return open end
for i = 4, #ARGV do redis.call('ZADD', KEYS[1], ARGV[2], ARGV[i]) end
redis.call('EXPIRE', KEYS[1], ARGV[3])
return -1
`;

export function tooManyOpenMessage(limit: number, open: number, adding: number): string {
  const asked = adding > 1 ? ` and this request adds ${adding}` : '';
  return `${JobMessages.tooManyWaiting}: at most ${limit} jobs may be waiting or running at once (you have ${open}${asked}). Try again when some have finished.`;
}

/**
 * The per-user limit on open (queued or running) jobs across tools. Each user has a set in Redis
 * of the ids of their jobs counted as open; a request's new ids are added atomically only if they
 * fit, before anything is stored or reserved, so the limit is exact under concurrent requests.
 * Ids stay in the set after their jobs end: the set is an upper bound, cleaned when it would
 * refuse (ended jobs read from the records and removed, then the check runs again), so no code
 * that ends a job (worker, sweep, cancel) has to remember the set, and a refusal is always checked
 * against the records.
 */
@Injectable()
export class OpenJobLimit {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @InjectModel(Job.name) private readonly jobs: Model<Job>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  private keyOf(userId: string): string {
    return `${this.config.REDIS_PREFIX}:open-jobs:${userId}`;
  }

  /** Counts these new jobs as open, or refuses with 429 naming the limit when they do not fit. */
  async admit(userId: string, jobIds: string[]): Promise<void> {
    if (jobIds.length === 0) return;
    let open = await this.tryAdmit(userId, jobIds);
    if (open < 0) return;
    await this.forgetEnded(userId);
    open = await this.tryAdmit(userId, jobIds);
    if (open < 0) return;
    throw new HttpException(
      tooManyOpenMessage(this.config.MAX_OPEN_JOBS_PER_USER, open, jobIds.length),
      HttpStatus.TOO_MANY_REQUESTS,
    );
  }

  /** Jobs admitted but not started after all (their request was refused later). */
  async release(userId: string, jobIds: string[]): Promise<void> {
    if (jobIds.length) await this.redis.zrem(this.keyOf(userId), ...jobIds);
  }

  private async tryAdmit(userId: string, jobIds: string[]): Promise<number> {
    const answer = await this.redis.eval(
      ADMIT_SCRIPT,
      1,
      this.keyOf(userId),
      this.config.MAX_OPEN_JOBS_PER_USER,
      Date.now(),
      SET_TTL_SECONDS,
      ...jobIds,
    );
    return Number(answer);
  }

  /** Removes from the set the jobs that have ended, and those never recorded. */
  private async forgetEnded(userId: string): Promise<void> {
    const key = this.keyOf(userId);
    const flat = await this.redis.zrange(key, 0, -1, 'WITHSCORES');
    const counted = new Map<string, number>();
    for (let i = 0; i < flat.length; i += 2) counted.set(flat[i], Number(flat[i + 1]));
    const ids = [...counted.keys()].filter((id) => Types.ObjectId.isValid(id));
    const rows = await this.jobs
      .find({ _id: { $in: ids.map((id) => new Types.ObjectId(id)) } }, { state: 1 })
      .lean();
    const stateOf = new Map(rows.map((row) => [String(row._id), row.state]));
    const cutoff = Date.now() - UNRECORDED_GRACE_MS;
    const gone = [...counted].filter(([id, countedAt]) => {
      const state = stateOf.get(id);
      // Not recorded yet: its request may still be storing inputs; give it the grace period.
      return state === undefined ? countedAt < cutoff : !isOpenJobState(state);
    });
    if (gone.length) await this.redis.zrem(key, ...gone.map(([id]) => id));
  }
}
