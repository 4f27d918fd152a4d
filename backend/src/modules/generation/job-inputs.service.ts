import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { isValidObjectId, Model } from 'mongoose';
import { DomainEvents, type DomainEventEnvelope } from '@studio/contracts';
import { PeriodicTask } from '../../common/periodic-task';
import { OnDomainEvent } from '../events';
import { FoldersService } from '../folders';
import { StoragePort } from '../storage';
import { CopyFinder } from '../takedown';
import { Job, type JobRecord } from './job.schema';

const SWEEP_EVERY_MS = 10 * 60_000;
const SWEEP_BATCH = 500;

/**
 * A job's inputs live as long as its outputs ("Run again", "Edit and run"): they go when the last
 * of its items is deleted or any of them is taken down (domain events, so a failed removal is
 * retried by the queue), and, for a job that ended with no outputs, when its retention period is
 * over (`inputsExpireAt`, swept here). Account deletion removes them with the account.
 */
@Injectable()
export class JobInputs implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(JobInputs.name);
  private readonly sweeps = new PeriodicTask(() =>
    this.sweep().then(
      () => undefined,
      (err: Error) => this.logger.warn(`input sweep failed: ${err.message}`),
    ),
  );

  constructor(
    @InjectModel(Job.name) private readonly jobs: Model<Job>,
    private readonly folders: FoldersService,
    private readonly storage: StoragePort,
    private readonly copies: CopyFinder,
  ) {}

  @OnDomainEvent(DomainEvents.contentDeleted)
  async onContentDeleted({ payload }: DomainEventEnvelope<'content.deleted'>): Promise<void> {
    if (!payload.jobId) return;
    const left = await this.folders.jobOutputs(payload.userId, payload.jobId);
    if (left.length === 0) await this.remove(payload.jobId);
  }

  @OnDomainEvent(DomainEvents.contentTakenDown)
  async onTakenDown({ payload }: DomainEventEnvelope<'content.taken_down'>): Promise<void> {
    if (payload.jobId) await this.remove(payload.jobId);
  }

  /** Removes the stored inputs of one job (files first: a retry finds the keys still listed). */
  async remove(jobId: string): Promise<void> {
    if (!isValidObjectId(jobId)) return;
    const job = await this.jobs.findById(jobId, { inputs: 1 }).lean<Pick<JobRecord, '_id' | 'inputs'>>();
    if (!job) return;
    await Promise.all(job.inputs.map((key) => this.storage.delete(key)));
    await this.copies.forgetInputs(jobId);
    await this.jobs.updateOne({ _id: job._id }, { $set: { inputs: [] }, $unset: { inputsExpireAt: 1 } });
  }

  /** Inputs of ended jobs without outputs whose retention is over; returns how many jobs. */
  async sweep(now = new Date()): Promise<number> {
    const due = await this.jobs
      .find({ inputsExpireAt: { $lte: now } }, { _id: 1 })
      .limit(SWEEP_BATCH)
      .lean();
    for (const job of due) await this.remove(String(job._id));
    return due.length;
  }

  onApplicationBootstrap(): void {
    this.sweeps.start(SWEEP_EVERY_MS);
  }

  async onModuleDestroy(): Promise<void> {
    await this.sweeps.stop();
  }
}
