import { hostname } from 'node:os';
import { Injectable, Logger } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model, Types } from 'mongoose';
import { DomainEvents, JobSocketEvents, TOOL_LABELS, type ContentItem } from '@studio/contracts';
import { LedgerService } from '../billing/ledger.service';
import { DomainEventBus } from '../events/domain-event-bus';
import { RealtimePublisher } from '../realtime/realtime.publisher';
import { FoldersService } from '../folders/folders.service';
import { StoragePort } from '../storage/storage.port';
import { batchStatus } from './batch-status';
import { Job, reservationKeyOf, type JobRecord } from './job.schema';
import { toJobView } from './job-view';

/**
 * The end of a job, in steps that may each be repeated: record the outcome on the job, settle the
 * credits (capture or refund, once, by the ledger's settle key), tell the owner and the log, drop
 * the inputs, mark the job settled. Whoever finds a finished job that is not settled (the runner
 * after a crash, the sweep) calls settle() again.
 */
/** Which worker process runs a job (host and process id), for the record and the queue board. */
export const WORKER_ID = `${hostname()}:${process.pid}`;

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

  async started(job: JobRecord): Promise<JobRecord> {
    const update = {
      state: 'running' as const,
      startedAt: new Date(),
      attempts: job.attempts + 1,
      worker: WORKER_ID,
    };
    await this.jobs.updateOne({ _id: job._id }, { $set: update });
    return { ...job, ...update };
  }

  async progressed(job: JobRecord, progress: number): Promise<void> {
    await this.jobs.updateOne({ _id: job._id }, { $set: { progress } });
    this.realtime.toUser(String(job.owner), JobSocketEvents.progress, {
      jobId: String(job._id),
      tool: job.tool,
      progress,
    });
  }

  async succeeded(job: JobRecord, outputs: ContentItem[]): Promise<void> {
    const update = { state: 'succeeded' as const, progress: 100, outputs, finishedAt: new Date() };
    await this.jobs.updateOne({ _id: job._id }, { $set: update });
    await this.settle({ ...job, ...update });
  }

  async failed(job: JobRecord, message: string): Promise<void> {
    const update = { state: 'failed' as const, error: message, finishedAt: new Date() };
    await this.jobs.updateOne({ _id: job._id }, { $set: update });
    await this.settle({ ...job, ...update });
  }

  /** Settles a finished job; safe to call any number of times. */
  async settle(job: JobRecord): Promise<void> {
    if (job.settled || (job.state !== 'succeeded' && job.state !== 'failed')) return;
    const jobId = String(job._id);
    const owner = { userId: String(job.owner), username: job.username };
    if (job.state === 'succeeded') {
      await this.ledger.capture(reservationKeyOf(jobId));
      this.realtime.toUser(owner.userId, JobSocketEvents.completed, { job: toJobView(job) });
      await this.events.publish(
        DomainEvents.jobCompleted,
        { ...owner, jobId, tool: job.tool, items: job.outputs.length, cost: job.cost },
        `job-completed:${jobId}`,
      );
    } else {
      const message = job.error ?? `${TOOL_LABELS[job.tool]} failed`;
      await this.ledger.refund(reservationKeyOf(jobId), `${TOOL_LABELS[job.tool]} failed: ${message}`);
      // The reservation is applied before the job record exists, so a failed job returns its cost.
      const refunded = job.cost;
      await this.jobs.updateOne({ _id: job._id }, { $set: { refunded } });
      this.realtime.toUser(owner.userId, JobSocketEvents.failed, {
        job: toJobView({ ...job, refunded }),
        message,
        refunded,
      });
      await this.events.publish(
        DomainEvents.jobFailed,
        { ...owner, jobId, tool: job.tool, message, refunded },
        `job-failed:${jobId}`,
      );
    }
    await Promise.all(
      job.inputs.map((key) =>
        this.storage.delete(key).catch((err) => this.logger.warn(`input ${key} kept: ${err}`)),
      ),
    );
    await this.jobs.updateOne({ _id: new Types.ObjectId(jobId) }, { $set: { settled: true } });
    if (job.params?.batchId)
      await this.reportBatch(job.params.batchId, job.params.batchName ?? 'Bulk inpaint');
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
