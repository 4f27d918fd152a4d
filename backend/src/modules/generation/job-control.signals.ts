import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type Redis from 'ioredis';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { subscriberOf } from '../../infrastructure/outage';
import { closeRedis, REDIS } from '../../infrastructure/redis.module';

/**
 * Tells whichever process runs a job that it was cancelled: one Redis channel per install, so an
 * API instance reaches the worker processes of the split deployment (WORKER_INLINE=false) as well
 * as its own inline runner. A message is only a prompt to stop early: the cancel has already
 * ended the job through the ledger, and a run that never hears of it has its result dropped when
 * it tries to end the job (capture loses to the refund).
 */
@Injectable()
export class JobCancelSignals implements OnModuleDestroy {
  private readonly logger = new Logger(JobCancelSignals.name);
  private readonly channel: string;
  private subscriber?: Redis;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.channel = `${config.REDIS_PREFIX}:jobs:cancelled`;
  }

  /** Announces that a job was cancelled (after its refund won). */
  async publish(jobId: string): Promise<void> {
    await this.redis.publish(this.channel, jobId);
  }

  /** Calls `onCancel` with the id of every job cancelled anywhere from now on (the worker's side). */
  async subscribe(onCancel: (jobId: string) => void): Promise<void> {
    // A connection in subscriber mode can do nothing else, hence its own.
    const subscriber = (this.subscriber ??= subscriberOf(this.redis));
    subscriber.on('message', (channel: string, jobId: string) => {
      if (channel === this.channel) onCancel(jobId);
    });
    subscriber.on('error', (err: Error) => this.logger.warn(`cancel channel: ${err.message}`));
    await subscriber.subscribe(this.channel);
  }

  async onModuleDestroy(): Promise<void> {
    await closeRedis(this.subscriber);
  }
}
