import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { isValidObjectId, Model, Types } from 'mongoose';
import { DomainEvents, JobSocketEvents, type DomainEventEnvelope } from '@studio/contracts';
import { OnDomainEvent } from '../events';
import { FoldersService } from '../folders';
import { RealtimePublisher } from '../realtime';
import { Job, type JobRecord } from './job.schema';
import { toJobView } from './job-view';

/**
 * A moderator's decision reaches the held output's job: a released output joins the job's items,
 * and the job stops saying it is held, in "My jobs" and, pushed, in the owner's open job trays.
 * Idempotent (the outputs are read again from the folder each time).
 */
@Injectable()
export class JobModerationListener {
  constructor(
    @InjectModel(Job.name) private readonly jobs: Model<Job>,
    private readonly folders: FoldersService,
    private readonly realtime: RealtimePublisher,
  ) {}

  @OnDomainEvent(DomainEvents.safetyDecision)
  async onDecision({ payload }: DomainEventEnvelope<'safety.decision'>): Promise<void> {
    const decision = payload.outcome?.decision;
    if (!decision || !payload.jobId || !isValidObjectId(payload.jobId)) return;
    const outputs = await this.folders.jobOutputs(payload.userId, payload.jobId);
    const job = await this.jobs
      .findOneAndUpdate(
        { _id: new Types.ObjectId(payload.jobId), owner: new Types.ObjectId(payload.userId) },
        { $set: { outputs, 'safety.decided': decision } },
        { new: true },
      )
      .lean<JobRecord>();
    if (job?.state === 'succeeded') {
      this.realtime.toUser(payload.userId, JobSocketEvents.completed, { job: toJobView(job) });
    }
  }
}
