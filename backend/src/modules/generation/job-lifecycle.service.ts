import { hostname } from 'node:os';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { isValidObjectId, Model, Types } from 'mongoose';
import {
  DomainEvents,
  JobMessages,
  JobSocketEvents,
  OPEN_JOB_STATES,
  TOOL_LABELS,
  type ContentItem,
} from '@studio/contracts';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { ApiKeySpending } from '../api-keys';
import { LedgerService, type Settlement } from '../billing';
import { DomainEventBus } from '../events';
import { RealtimePublisher } from '../realtime';
import { FoldersService } from '../folders';
import { batchStatus } from './batch-status';
import { Job, reservationKeyOf, type JobCancel, type JobRecord } from './job.schema';
import { isFinal, transition } from './job-state';
import { toJobView } from './job-view';

/** Which worker process runs a job (host and process id), for the record and the queue board. */
export const WORKER_ID = `${hostname()}:${process.pid}`;

/** How a party that ends a job would like it to end; the ledger's settlement has the last word. */
export type JobEnding =
  | { outcome: 'success'; outputs: ContentItem[] }
  | { outcome: 'failure'; message: string }
  | { outcome: 'cancel'; by: JobCancel };

/** What a cancel did: whether this call ended the job `cancelled`, and the credits it returned. */
export interface CancelOutcome {
  /** The job after the call (null when the record is gone). */
  job: JobRecord | null;
  cancelled: boolean;
  refunded: number;
}

const DAY_MS = 24 * 3600_000;

/**
 * A job's way through the state machine (job-state.ts). Its end, in steps that may each be
 * repeated by anyone (the worker, a rerun after a crash, the sweep, a cancel):
 *   1. settle the credits: capture on success, refund on failure or cancel — the ledger's
 *      `settle:` key lets exactly one of them happen, and whichever won decides the job's final
 *      state (a refund of a job marked cancelled ends it `cancelled`, otherwise `failed`);
 *   2. announce it (domain event under an id derived from the job; the job not yet final is its
 *      outbox);
 *   3. move the job to its final state with `settled: true`, in one conditional update.
 * A worker whose result lost to a refund (the sweep gave the job up, or its owner cancelled it,
 * while it computed) removes the items it stored: no result without payment. A failure or cancel
 * that lost to a capture (the run was paid for first) ends 'succeeded' with the items it stored.
 * The inputs stay for "Run again" as long as the outputs do (JobInputs removes them).
 */
@Injectable()
export class JobLifecycle {
  private readonly logger = new Logger(JobLifecycle.name);

  constructor(
    @InjectModel(Job.name) private readonly jobs: Model<Job>,
    private readonly ledger: LedgerService,
    private readonly events: DomainEventBus,
    private readonly realtime: RealtimePublisher,
    private readonly folders: FoldersService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly keySpending: ApiKeySpending,
  ) {}

  /** queued|running → running (a new attempt); null when the job has ended (or is gone). */
  async started(jobId: string): Promise<JobRecord | null> {
    if (!isValidObjectId(jobId)) return null;
    return transition(
      this.jobs,
      new Types.ObjectId(jobId),
      'running',
      { startedAt: new Date(), worker: WORKER_ID },
      { attempts: 1 },
    );
  }

  /**
   * Tells the owner how far a running job is. Pushed at once, before the record is written: an
   * engine busy on the CPU may leave the database's answer waiting until its next pause, and the
   * push would have waited with it.
   */
  pushProgress(job: JobRecord, progress: number): void {
    this.realtime.toUser(String(job.owner), JobSocketEvents.progress, {
      jobId: String(job._id),
      tool: job.tool,
      progress,
    });
  }

  async recordProgress(job: JobRecord, progress: number): Promise<void> {
    await this.jobs.updateOne({ _id: job._id, state: 'running' }, { $set: { progress } });
  }

  async succeeded(job: JobRecord, outputs: ContentItem[]): Promise<JobRecord> {
    return this.end(job, { outcome: 'success', outputs });
  }

  async failed(job: JobRecord, message: string): Promise<JobRecord> {
    return this.end(job, { outcome: 'failure', message });
  }

  /** Finishes an ended job whose announcements a crash may have cut short (records of old runs). */
  async settle(job: JobRecord): Promise<void> {
    if (job.settled || !isFinal(job.state)) return;
    await this.end(
      job,
      job.state === 'succeeded'
        ? { outcome: 'success', outputs: job.outputs }
        : job.state === 'cancelled' && job.cancel
          ? { outcome: 'cancel', by: job.cancel }
          : { outcome: 'failure', message: job.error ?? JobMessages.failed },
    );
  }

  /**
   * Cancels an open job for its owner or a member of staff (`by`): marks it cancelled-by, then ends
   * it like a failure — the refund and a finishing run race on the ledger's settle key, so exactly
   * one of capture and refund happens. `cancelled` is true when this call ended the job.
   * Stopping its work (queue, running engine) is the caller's part, once the refund has won.
   */
  async cancel(
    jobId: Job['_id'],
    by: Omit<JobCancel, 'at'>,
    options: { reportBatch?: boolean } = {},
  ): Promise<CancelOutcome> {
    const marked = await this.jobs
      .findOneAndUpdate(
        { _id: jobId, state: { $in: [...OPEN_JOB_STATES] }, cancel: { $exists: false } },
        { $set: { cancel: { ...by, at: new Date() } } },
        { new: true },
      )
      .lean<Job>();
    // Not marked: it ended, or another cancel marked it first (finishing that one is harmless).
    const job = marked ?? (await this.jobs.findById(jobId).lean<Job>());
    if (!job?.cancel || isFinal(job.state)) return { job, cancelled: false, refunded: 0 };
    const { job: after, settledHere } = await this.finish(
      job,
      { outcome: 'cancel', by: job.cancel },
      options,
    );
    // This call's refund won (whoever wrote the final state: a worker whose capture lost may).
    const cancelled = settledHere && after.state === 'cancelled';
    return { job: after, cancelled, refunded: cancelled ? (after.refunded ?? 0) : 0 };
  }

  /** Ends a job as the ledger's settlement says (see the class comment); returns the job after. */
  async end(job: JobRecord, wish: JobEnding): Promise<JobRecord> {
    return (await this.finish(job, wish)).job;
  }

  /** end(), also telling whether this call's capture or refund was the settlement. */
  private async finish(
    job: JobRecord,
    wish: JobEnding,
    options: { reportBatch?: boolean } = {},
  ): Promise<{ job: JobRecord; settledHere: boolean }> {
    const jobId = String(job._id);
    const key = reservationKeyOf(jobId);
    const label = TOOL_LABELS[job.tool];
    // What this call did answers for itself; otherwise the ledger says which settlement won.
    let settlement: Settlement | null;
    if (wish.outcome === 'success') {
      settlement = (await this.ledger.capture(key)) ? { kind: 'capture', refunded: 0 } : null;
    } else {
      const reason =
        wish.outcome === 'cancel'
          ? `${label} cancelled${wish.by.staff ? ` by ${wish.by.username}` : ''}`
          : `${label} failed: ${wish.message}`;
      const refunded = await this.ledger.refund(key, reason);
      settlement = refunded > 0 ? { kind: 'refund', refunded } : null;
    }
    const settledHere = settlement !== null;
    settlement ??= await this.ledger.settlement(key);
    // Refunded coins no longer count against the key's monthly cap (once, whoever refunded).
    if (job.apiKey && settlement?.kind === 'refund') {
      await this.keySpending.giveBack(job.apiKey, jobId, job.cost);
    }
    const owner = { userId: String(job.owner), username: job.username };
    // A refund ends the job `cancelled` when it was cancelled: the mark is written before the
    // cancel's refund, so whoever sees that refund (a worker whose capture lost) reads the mark.
    const cancel =
      wish.outcome === 'cancel'
        ? wish.by
        : settlement?.kind === 'refund'
          ? ((await this.jobs.findById(job._id, { cancel: 1 }).lean<Pick<Job, 'cancel'>>())?.cancel ??
            job.cancel)
          : undefined;

    let final: Partial<Job> & Pick<Job, 'state'>;
    if (cancel && (settlement?.kind === 'refund' || !settlement)) {
      const refunded = settlement?.refunded ?? 0;
      // No result without payment: whatever a run of this job stored goes.
      await this.folders.removeJobOutputs(String(job.owner), jobId);
      final = { state: 'cancelled', error: JobMessages.cancelled, refunded, outputs: [] };
      await this.events.publishDirect(
        DomainEvents.jobCancelled,
        {
          ...owner,
          jobId,
          tool: job.tool,
          refunded,
          by: { userId: cancel.userId, username: cancel.username, staff: cancel.staff },
        },
        `job-cancelled:${jobId}`,
      );
    } else if (settlement?.kind === 'refund') {
      const message = wish.outcome === 'failure' ? wish.message : (job.error ?? JobMessages.failed);
      // No result without payment: whatever a run of this job stored goes.
      await this.folders.removeJobOutputs(String(job.owner), jobId);
      final = { state: 'failed', error: message, refunded: settlement.refunded, outputs: [] };
      await this.events.publishDirect(
        DomainEvents.jobFailed,
        { ...owner, jobId, tool: job.tool, message, refunded: settlement.refunded },
        `job-failed:${jobId}`,
      );
    } else {
      // Captured (or, for a record with no reservation left, nothing to settle).
      if (!settlement) this.logger.warn(`job ${jobId} ends with no reservation to settle`);
      const outputs =
        wish.outcome === 'success' ? wish.outputs : await this.folders.jobOutputs(String(job.owner), jobId);
      final = { state: 'succeeded', progress: 100, outputs };
      await this.events.publishDirect(
        DomainEvents.jobCompleted,
        { ...owner, jobId, tool: job.tool, items: outputs.length, cost: job.cost },
        `job-completed:${jobId}`,
      );
    }
    const finishedAt = new Date();
    // Inputs of a job that made nothing are kept for "Run again" only for the retention period.
    if (!final.outputs?.length && job.inputs.length > 0) {
      final.inputsExpireAt = new Date(finishedAt.getTime() + this.config.JOB_INPUTS_RETENTION_DAYS * DAY_MS);
    }
    const moved = await transition(this.jobs, job._id, final.state, { ...final, finishedAt, settled: true });
    if (!moved) {
      // Ended before (by another party, the same way: the ledger decided for both).
      const current = await this.jobs
        .findOneAndUpdate({ _id: job._id, settled: false }, { $set: { settled: true } }, { new: true })
        .lean<Job>();
      return {
        job: current ?? ((await this.jobs.findById(job._id).lean<Job>()) as JobRecord),
        settledHere,
      };
    }
    const view = toJobView(moved);
    if (moved.state === 'succeeded') {
      this.realtime.toUser(owner.userId, JobSocketEvents.completed, { job: view });
    } else if (moved.state === 'cancelled') {
      // Every open tab of the owner; the new balance follows from the ledger's balance event.
      this.realtime.toUser(owner.userId, JobSocketEvents.cancelled, {
        job: view,
        refunded: moved.refunded ?? 0,
      });
    } else {
      this.realtime.toUser(owner.userId, JobSocketEvents.failed, {
        job: view,
        message: moved.error ?? JobMessages.failed,
        refunded: moved.refunded ?? 0,
      });
    }
    if (moved.params?.batchId && options.reportBatch !== false) await this.reportBatch(moved.params);
    return { job: moved, settledHere };
  }

  /** A bulk batch's status line: how many of its jobs are done, then its name (and what was refunded). */
  async reportBatch(params: Pick<Job['params'], 'batchId' | 'batchName'>): Promise<void> {
    if (!params.batchId) return;
    const name = params.batchName ?? 'Bulk inpaint';
    const children = await this.jobs.find({ 'params.batchId': params.batchId }, { state: 1 }).lean();
    const done = children.filter((c) => isFinal(c.state)).length;
    const failed = children.filter((c) => c.state === 'failed').length;
    const cancelled = children.filter((c) => c.state === 'cancelled').length;
    const refunded = [
      failed > 0 && `${failed} of ${children.length} failed`,
      cancelled > 0 && `${cancelled} of ${children.length} cancelled`,
    ].filter(Boolean);
    const title =
      done < children.length
        ? batchStatus(name, done, children.length)
        : refunded.length > 0
          ? `${name} (${refunded.join(', ')}, refunded)`
          : name;
    await this.folders.setBatchTitle(params.batchId, title);
  }
}
