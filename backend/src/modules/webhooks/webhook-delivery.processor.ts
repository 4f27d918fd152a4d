import { Process, Processor } from '@nestjs/bull';
import { Inject, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { Job } from 'bull';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { PeriodicTask } from '../../common/periodic-task';
import { WEBHOOK_QUEUE, WebhookDeliveries, type DeliveryJob } from './webhook-deliveries';

/** Deliveries in flight at once per worker (each waits at most WEBHOOK_TIMEOUT_MS). */
const CONCURRENCY = 16;

/** Worker side: makes each queued attempt, and queues again what a crash left behind. */
@Processor(WEBHOOK_QUEUE)
export class WebhookDeliveryProcessor implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(WebhookDeliveryProcessor.name);
  private readonly sweeper = new PeriodicTask(() =>
    this.deliveries.sweep().then(
      () => undefined,
      (err: Error) => this.logger.warn(`webhook sweep failed: ${err.message}`),
    ),
  );

  constructor(
    private readonly deliveries: WebhookDeliveries,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Process({ concurrency: CONCURRENCY })
  async handle(job: Job<DeliveryJob>): Promise<void> {
    await this.deliveries.attempt(job.data.deliveryId);
  }

  onModuleInit(): void {
    this.sweeper.start(Math.min(60_000, Math.max(1000, this.config.WEBHOOK_TIMEOUT_MS)));
  }

  async onModuleDestroy(): Promise<void> {
    await this.sweeper.stop();
  }
}
