import { hostname } from 'node:os';
import { Injectable, Logger } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { isValidObjectId, Model, Types } from 'mongoose';
import { DomainEvents, JobMessages, JobSocketEvents, TOOL_LABELS, type ContentItem } from '@studio/contracts';
import { LedgerService, type Settlement } from '../billing/ledger.service';
import { DomainEventBus } from '../events/domain-event-bus';
import { RealtimePublisher } from '../realtime/realtime.publisher';
import { FoldersService } from '../folders/folders.service';
import { StoragePort } from '../storage/storage.port';
import { batchStatus } from './batch-status';
import { Job, reservationKeyOf, type JobRecord } from './job.schema';
import { isFinal, transition } from './job-state';
import { toJobView } from './job-view';

/** Which worker process runs a job (host and process id), for the record and the queue board. */
export const WORKER_ID = `${hostname()}:${process.pid}`;

/** How a party that ends a job would like it to end; the ledger's settlement has the last word. */
export type JobEnding =
  { outcome: 'success'; outputs: ContentItem[] } | { outcome: 'failure'; message: string };

/**
 * A job's way through the state machine (job-state.ts). Its end, in steps that may each be
 * repeated by anyone (the worker, a rerun after a crash, the sweep):
 *   1. settle the credits: capture on success, refund on failure — the ledger's `settle:` key lets
 *      exactly one of them happen, and whichever won decides the job's final state;
 *   2. announce it (domain event under an id derived from the job; the job not yet final is its
 *      outbox) and drop the inputs;
 *   3. move the job to its final state with `settled: true`, in one conditional update.
 * A worker whose result lost to a refund (the sweep gave the job up while it computed) removes
 * the items it stored: no result without payment. A failure that lost to a capture (a rerun that
 * failed after an earlier run was paid for) ends 'succeeded' with the items that run stored.
 */
@Injectable()
export class JobLifecycle {
  private readonly logger = new Logger(JobLifecycle.name);

  constructor(
    @InjectModel(Job.name) private readonly jobs: Model<Job>,
    private readonly ledger: LedgerService,
    private readonly events: DomainEventBus,
    private readonly realtime: RealtimePublisher,
    private readonly storage: StoragePort,
    private readonly folders: FoldersService,
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
        : { outcome: 'failure', message: job.error ?? JobMessages.failed },
    );
  }

  /** Ends a job as the ledger's settlement says (see the class comment); returns the job after. */
  async end(job: JobRecord, wish: JobEnding): Promise<JobRecord> {
    const jobId = String(job._id);
    const key = reservationKeyOf(jobId);
    const label = TOOL_LABELS[job.tool];
    // What this call did answers for itself; otherwise the ledger says which settlement won.
    let settlement: Settlement | null;
    if (wish.outcome === 'success') {
      settlement = (await this.ledger.capture(key)) ? { kind: 'capture', refunded: 0 } : null;
    } else {
      const refunded = await this.ledger.refund(key, `${label} failed: ${wish.message}`);
      settlement = refunded > 0 ? { kind: 'refund', refunded } : null;
    }
    settlement ??= await this.ledger.settlement(key);
    const owner = { userId: String(job.owner), username: job.username };

    let final: Partial<Job> & Pick<Job, 'state'>;
    if (settlement?.kind === 'refund') {
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
    await Promise.all(
      job.inputs.map((input) =>
        this.storage.delete(input).catch((err) => this.logger.warn(`input ${input} kept: ${err}`)),
      ),
    );
    const moved = await transition(this.jobs, job._id, final.state, {
      ...final,
      finishedAt: new Date(),
      settled: true,
    });
    if (!moved) {
      // Ended before (by another party, the same way: the ledger decided for both).
      const current = await this.jobs
        .findOneAndUpdate({ _id: job._id, settled: false }, { $set: { settled: true } }, { new: true })
        .lean<Job>();
      return current ?? ((await this.jobs.findById(job._id).lean<Job>()) as JobRecord);
    }
    if (moved.state === 'succeeded') {
      this.realtime.toUser(owner.userId, JobSocketEvents.completed, { job: toJobView(moved) });
    } else {
      this.realtime.toUser(owner.userId, JobSocketEvents.failed, {
        job: toJobView(moved),
        message: moved.error ?? JobMessages.failed,
        refunded: moved.refunded ?? 0,
      });
    }
    if (moved.params?.batchId)
      await this.reportBatch(moved.params.batchId, moved.params.batchName ?? 'Bulk inpaint');
    return moved;
  }

  /** A bulk batch's status line: how many of its jobs are done, then its name (and failures). */
  private async reportBatch(batchId: string, name: string): Promise<void> {
    const children = await this.jobs.find({ 'params.batchId': batchId }, { state: 1 }).lean();
    const done = children.filter((c) => c.state === 'succeeded' || c.state === 'failed').length;
    const failed = children.filter((c) => c.state === 'failed').length;
    const title =
      done < children.length
        ? batchStatus(name, done, children.length)
        : failed > 0
          ? `${name} (${failed} of ${children.length} failed, refunded)`
          : name;
    await this.folders.setBatchTitle(batchId, title);
  }
}
