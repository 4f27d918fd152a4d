import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { InjectModel } from '@nestjs/mongoose';
import type { Job as BullJob, Queue } from 'bull';
import { Model } from 'mongoose';
import {
  DomainEvents,
  JobMessages,
  JobTools,
  type DomainEventEnvelope,
  type JobTool,
  type LedgerKind,
} from '@studio/contracts';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { OnDomainEvent } from '../events';
import { EngineRegistry, runsQueue, toolQueueToken } from '../engines';
import { Job } from '../generation';
import { RESTORE_FAILURE_MESSAGE } from '../restore';
import { StudioMetrics, type CreditMovement, type FailureReason, type JobEndState } from './studio-metrics';

/** Messages that name an input the engine could not work with (job-runner's EngineInputError). */
const INPUT_MESSAGES = new Set<string>(Object.values(JobMessages));

/** The messages of faults past the box, each its own reason (before the input messages: all are JobMessages). */
const FAULT_REASONS = new Map<string, FailureReason>([
  [JobMessages.engineDown, 'engine_down'],
  [JobMessages.engineTimeout, 'engine_timeout'],
  [JobMessages.engineServerError, 'engine_server_error'],
  [JobMessages.engineBadOutput, 'engine_bad_output'],
  [JobMessages.storageFull, 'storage_full'],
  [JobMessages.storageUnavailable, 'storage_unavailable'],
]);

export function failureReason(message: string): FailureReason {
  if (message === JobMessages.engineUnavailable || message === JobMessages.engineUnreachable)
    return 'engine_unavailable';
  if (message === JobMessages.engineCrashed) return 'engine_crashed';
  const fault = FAULT_REASONS.get(message);
  if (fault) return fault;
  if (message === JobMessages.failed) return 'engine_error';
  if (message === RESTORE_FAILURE_MESSAGE) return 'restore';
  return INPUT_MESSAGES.has(message) ? 'input' : 'other';
}

const SEEN_EVENTS = 10_000;

/**
 * Counts jobs and credits from what already happens, without touching the services that do it:
 * the domain events (delivered in the process that runs the event consumers: the worker, or the
 * API in local mode) and the Bull events of the tool queues this process works on (starts, retries).
 * Domain events are delivered at least once: a redelivered id is not counted again.
 */
@Injectable()
export class JobMetricsListener implements OnApplicationBootstrap {
  private readonly seen = new Set<string>();

  constructor(
    private readonly metrics: StudioMetrics,
    private readonly engines: EngineRegistry,
    private readonly modules: ModuleRef,
    @InjectModel(Job.name) private readonly jobs: Model<Job>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    for (const tool of JobTools) {
      if (!runsQueue(this.config, tool)) continue;
      const queue = this.modules.get<Queue>(toolQueueToken(tool), { strict: false });
      // Local events: only this process's own runs.
      queue.on('active', (job: BullJob) => {
        const engine = this.engines.kindFor(tool);
        this.metrics.jobsStarted.inc({ tool, engine });
        if (job.attemptsMade === 0 && job.processedOn) {
          this.metrics.jobWait.observe({ tool, engine }, Math.max(0, job.processedOn - job.timestamp) / 1000);
        }
      });
      queue.on('failed', (job: BullJob) => {
        // The runner throws back only errors it wants retried; the last attempt ends the job itself.
        if (job.attemptsMade < (job.opts.attempts ?? 1)) {
          this.metrics.jobRetries.inc({ tool, engine: this.engines.kindFor(tool) });
        }
      });
    }
  }

  @OnDomainEvent(DomainEvents.jobCompleted)
  async completed(event: DomainEventEnvelope<'generation.completed'>): Promise<void> {
    if (this.once(event)) await this.ended(event, event.payload.tool, 'succeeded');
  }

  @OnDomainEvent(DomainEvents.jobFailed)
  async failed(event: DomainEventEnvelope<'generation.failed'>): Promise<void> {
    if (!this.once(event)) return;
    const { tool, message } = event.payload;
    this.metrics.jobFailures.inc({
      tool,
      engine: this.engines.kindFor(tool),
      reason: failureReason(message),
    });
    await this.ended(event, tool, 'failed');
  }

  @OnDomainEvent(DomainEvents.safetyDecision)
  safety(event: DomainEventEnvelope<'safety.decision'>): void {
    if (!this.once(event)) return;
    this.metrics.safetyDecisions.inc({ action: event.payload.action, reason: event.payload.reason });
  }

  @OnDomainEvent(DomainEvents.jobCancelled)
  async cancelled(event: DomainEventEnvelope<'generation.cancelled'>): Promise<void> {
    if (!this.once(event)) return;
    const { tool, by } = event.payload;
    this.metrics.jobCancels.inc({ tool, by: by.staff ? 'staff' : 'owner' });
    await this.ended(event, tool, 'cancelled');
  }

  @OnDomainEvent(DomainEvents.balanceChanged)
  balanceChanged(event: DomainEventEnvelope<'account.balance_changed'>): void {
    if (!this.once(event)) return;
    const { kind, delta } = event.payload;
    this.moved(kind as Exclude<LedgerKind, 'capture'>, Math.abs(delta));
  }

  @OnDomainEvent(DomainEvents.creditsCaptured)
  captured(event: DomainEventEnvelope<'credits.captured'>): void {
    if (this.once(event)) this.moved('charged', Math.abs(event.payload.amount));
  }

  private moved(movement: CreditMovement, amount: number): void {
    this.metrics.credits.inc({ movement }, amount);
    this.metrics.creditEntries.inc({ movement });
  }

  /**
   * Counts the end and its run time: the start is read from the record; the end is the record's
   * finishedAt, or the event's own time when the event is read first (the runner publishes it
   * before it writes finishedAt, so that a crash between the two cannot lose the event).
   */
  private async ended(
    event: DomainEventEnvelope<'generation.completed' | 'generation.failed' | 'generation.cancelled'>,
    tool: JobTool,
    state: JobEndState,
  ): Promise<void> {
    const jobId = event.payload.jobId;
    const engine = this.engines.kindFor(tool);
    // A failed read loses one observation, never the event (its other consumers would rerun).
    const job = await this.jobs
      .findById(jobId, { startedAt: 1, finishedAt: 1 })
      .lean()
      .catch(() => null);
    // Counted with its run time at once: a scrape sees both or neither.
    this.metrics.jobsEnded.inc({ tool, engine, state });
    if (job?.startedAt) {
      const finishedAt = job.finishedAt ?? event.occurredAt;
      const seconds = (new Date(finishedAt).getTime() - new Date(job.startedAt).getTime()) / 1000;
      this.metrics.jobRun.observe({ tool, engine, state }, Math.max(0, seconds));
    }
  }

  private once(event: DomainEventEnvelope): boolean {
    if (this.seen.has(event.id)) return false;
    this.seen.add(event.id);
    if (this.seen.size > SEEN_EVENTS) this.seen.delete(this.seen.values().next().value!);
    return true;
  }
}
