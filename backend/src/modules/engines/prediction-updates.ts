import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import type Redis from 'ioredis';
import type { PredictionUpdates } from '@studio/inference';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { subscriberOf } from '../../infrastructure/outage';
import { closeRedis, REDIS } from '../../infrastructure/redis.module';

/**
 * Carries Replicate's webhook deliveries from the API instance that received them to the worker
 * waiting on that prediction, whichever process it is in: one Redis channel, one subscriber
 * connection per process (opened on first wait), waiters by prediction id. A delivery nobody
 * waits for is dropped: the job's slow polling picks the result up anyway.
 */
@Injectable()
export class PredictionUpdatesHub implements PredictionUpdates, OnApplicationShutdown {
  private readonly logger = new Logger(PredictionUpdatesHub.name);
  private readonly channel: string;
  private readonly waiters = new Map<string, Set<(prediction: unknown) => void>>();
  private subscriber?: Redis;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.channel = `${config.REDIS_PREFIX}:replicate:predictions`;
  }

  /** A verified delivery: wakes its waiter in every process. */
  async publish(prediction: { id: string } & Record<string, unknown>): Promise<void> {
    await this.redis.publish(this.channel, JSON.stringify(prediction));
  }

  /**
   * Never rejects and never outlasts `timeoutMs`: the subscription is made in the background, and
   * a delivery missed while it is not in place (or while Redis is away) is found by polling.
   */
  wait(predictionId: string, timeoutMs: number, signal?: AbortSignal): Promise<unknown> {
    this.subscribe();
    if (signal?.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const waiters = this.waiters.get(predictionId) ?? new Set();
      this.waiters.set(predictionId, waiters);
      const done = (value: unknown) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', abort);
        waiters.delete(done);
        if (waiters.size === 0) this.waiters.delete(predictionId);
        resolve(value);
      };
      const abort = () => done(undefined);
      const timer = setTimeout(() => done(undefined), timeoutMs);
      signal?.addEventListener('abort', abort, { once: true });
      waiters.add(done);
    });
  }

  private subscribe(): void {
    if (this.subscriber) return;
    const subscriber = subscriberOf(this.redis);
    this.subscriber = subscriber;
    subscriber.on('message', (_channel: string, message: string) => {
      let prediction: unknown;
      try {
        prediction = JSON.parse(message);
      } catch {
        return;
      }
      const id = (prediction as { id?: unknown })?.id;
      if (typeof id !== 'string') return;
      for (const wake of [...(this.waiters.get(id) ?? [])]) wake(prediction);
    });
    subscriber.on('error', (err: Error) => this.logger.warn(`prediction updates: ${err.message}`));
    subscriber.subscribe(this.channel).catch((err: Error) => {
      // The next wait tries again; meanwhile jobs poll.
      this.logger.warn(`prediction updates: cannot subscribe (${err.message})`);
      if (this.subscriber === subscriber) this.subscriber = undefined;
      subscriber.disconnect();
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await closeRedis(this.subscriber);
  }
}
