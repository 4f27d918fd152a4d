import {
  ConflictException,
  ForbiddenException,
  GoneException,
  Injectable,
  Logger,
  NotFoundException,
} from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { InjectModel } from '@nestjs/mongoose';
import type { Queue } from 'bull';
import { isValidObjectId, Model, Types } from 'mongoose';
import sharp from 'sharp';
import {
  canSupport,
  JobMessages,
  OPEN_JOB_STATES,
  superResolutionUnits,
  type CancelJobResult,
  type JobView,
} from '@studio/contracts';
import type { AuthUser } from '../auth';
import { LedgerService } from '../billing';
import { FoldersService } from '../folders';
import { OperationsService } from '../operations';
import { StoragePort, type StoredObject } from '../storage';
import { GenerationService, type JobInput } from './generation.service';
import { Job, type JobParams, type JobRecord } from './job.schema';
import { JobCancelSignals } from './job-control.signals';
import { JobLifecycle } from './job-lifecycle.service';
import { toolQueueToken } from '../engines';
import { toJobView } from './job-view';
import { QueuePositions } from './queue-positions';

/** A stored input as served to its owner ("Edit and run"). */
export interface JobInputFile extends StoredObject {
  contentType: string;
}

/** The price a retry would cost now, sent with the 409 so the client can ask again. */
export class PriceChangedException extends ConflictException {
  constructor(readonly cost: number) {
    super({ message: JobMessages.priceChanged, extra: { cost } });
  }
}

const CONTENT_TYPE_OF_EXTENSION: Record<string, string> = { png: 'image/png', mp4: 'video/mp4' };

/**
 * Cancel, "Run again" and the inputs behind "Edit and run". Every method takes the caller first
 * and checks access on its first line: the owner, or (cancel only) support and admin staff;
 * anyone else's job is a 404, as if it did not exist.
 */
@Injectable()
export class JobControlService {
  private readonly logger = new Logger(JobControlService.name);

  constructor(
    @InjectModel(Job.name) private readonly jobs: Model<Job>,
    private readonly lifecycle: JobLifecycle,
    private readonly generation: GenerationService,
    private readonly ledger: LedgerService,
    private readonly folders: FoldersService,
    private readonly storage: StoragePort,
    private readonly signals: JobCancelSignals,
    private readonly positions: QueuePositions,
    private readonly operations: OperationsService,
    private readonly modules: ModuleRef,
  ) {}

  /** Cancels one open job: refunded in full, or 409 when it ended first (a finish won the race). */
  async cancel(user: AuthUser, jobId: string): Promise<CancelJobResult> {
    const job = await this.requireJob(user, jobId, { staff: true });
    const outcome = await this.cancelOne(user, job);
    if (!outcome.cancelled) throw new ConflictException(JobMessages.alreadyEnded);
    return { cancelled: 1, refunded: outcome.refunded, jobs: [viewFor(user, outcome.job!)] };
  }

  /**
   * Cancels every open job of a bulk batch: what finished stays (paid), exactly the undelivered
   * share is refunded, and the batch's status line is written once at the end.
   */
  async cancelBatch(user: AuthUser, batchId: string): Promise<CancelJobResult> {
    const children = await this.requireBatch(user, batchId);
    const open = children.filter((job) => OPEN_JOB_STATES.includes(job.state));
    if (open.length === 0) throw new ConflictException(JobMessages.alreadyEnded);
    let cancelled = 0;
    let refunded = 0;
    for (const job of open) {
      const outcome = await this.cancelOne(user, job, { reportBatch: false });
      if (outcome.cancelled) {
        cancelled += 1;
        refunded += outcome.refunded;
      }
    }
    await this.lifecycle.reportBatch(children[0].params);
    if (cancelled === 0) throw new ConflictException(JobMessages.alreadyEnded);
    const after = await this.jobs
      .find({ _id: { $in: children.map((job) => job._id) } })
      .sort({ _id: 1 })
      .lean<JobRecord[]>();
    return { cancelled, refunded, jobs: after.map((job) => viewFor(user, job)) };
  }

  /**
   * "Run again": the same inputs and settings as a new job, through the tool's usual submission
   * (engine available, folder, credits reserved). 409 with the current price when it is not the
   * one the caller confirmed; 410 when the inputs are no longer stored.
   */
  async retry(user: AuthUser, jobId: string, expectedCost: number): Promise<JobView> {
    const job = await this.requireJob(user, jobId, { staff: false });
    // The upload route's feature flag holds for a run again too.
    if (job.tool === 'faceSwapVideo' && !(await this.operations.flags()).videoFaceSwap) {
      throw new ForbiddenException(JobMessages.videoSwapOff);
    }
    const inputs = await this.storedInputs(job);
    const units = job.units ?? (await unitsOf(job, inputs));
    const cost = this.ledger.quote(job.tool, units);
    if (cost !== expectedCost) throw new PriceChangedException(cost);
    // The results go where the first run's went, unless that folder is gone (then the tool's own).
    const folderId = await this.folders.assertFolder(user, String(job.folder)).then(
      () => String(job.folder),
      () => undefined,
    );
    // A bulk batch's job runs again on its own, outside the batch.
    const { batchId: _batchId, batchName: _batchName, batchSize: _batchSize, ...params } = job.params ?? {};
    return this.generation.submit(user, {
      tool: job.tool,
      folderId,
      inputs,
      units,
      params: params as JobParams,
    });
  }

  /** One stored input of the caller's job ("Edit and run" pre-fills the tool with it). */
  async input(user: AuthUser, jobId: string, index: number): Promise<JobInputFile> {
    const job = await this.requireJob(user, jobId, { staff: false });
    const key = job.inputs[index];
    if (key === undefined) throw new GoneException(JobMessages.inputsGone);
    const object = await this.storage.forRequest().get(key);
    if (!object) throw new GoneException(JobMessages.inputsGone);
    return { ...object, contentType: contentTypeOf(key) };
  }

  /**
   * Ends the job through the ledger, then (only when the refund won) stops its work: a waiting
   * Bull job is removed, a running one is told to stop wherever it runs, and the jobs behind it
   * are told their new places.
   */
  private async cancelOne(user: AuthUser, job: JobRecord, options: { reportBatch?: boolean } = {}) {
    const by = { userId: user.id, username: user.username, staff: String(job.owner) !== user.id };
    const outcome = await this.lifecycle.cancel(job._id, by, options);
    if (outcome.cancelled) {
      const jobId = String(job._id);
      const queue = this.modules.get<Queue>(toolQueueToken(job.tool), { strict: false });
      try {
        await (await queue.getJob(jobId))?.remove();
      } catch (err) {
        // A worker took it meanwhile (its lock stops the removal): the signal below reaches it,
        // and a run that starts later finds the job ended.
        this.logger.debug(`job ${jobId} left in its queue: ${String(err)}`);
      }
      await this.signals
        .publish(jobId)
        .catch((err) => this.logger.warn(`cancel of job ${jobId} not signalled: ${String(err)}`));
      this.positions.announce(job.tool);
    }
    return outcome;
  }

  private async requireJob(user: AuthUser, jobId: string, access: { staff: boolean }): Promise<JobRecord> {
    const job = isValidObjectId(jobId) ? await this.jobs.findById(jobId).lean<JobRecord>() : null;
    const allowed = job && (String(job.owner) === user.id || (access.staff && canSupport(user.role)));
    if (!allowed) throw new NotFoundException(JobMessages.notFound);
    return job;
  }

  /** The jobs of a batch the caller may cancel (their own; staff any), oldest first. */
  private async requireBatch(user: AuthUser, batchId: string): Promise<JobRecord[]> {
    if (!isValidObjectId(batchId)) throw new NotFoundException(JobMessages.notFound);
    const filter = canSupport(user.role)
      ? { 'params.batchId': batchId }
      : { 'params.batchId': batchId, owner: new Types.ObjectId(user.id) };
    const children = await this.jobs.find(filter).sort({ _id: 1 }).lean<JobRecord[]>();
    if (children.length === 0) throw new NotFoundException(JobMessages.notFound);
    return children;
  }

  /** The job's inputs as a new request takes them; 410 when any of them is no longer stored. */
  private async storedInputs(job: JobRecord): Promise<JobInput[]> {
    if (job.tool !== 'generate' && job.inputs.length === 0) throw new GoneException(JobMessages.inputsGone);
    return Promise.all(
      job.inputs.map(async (key) => {
        const data = await this.storage.read(key);
        if (!data) throw new GoneException(JobMessages.inputsGone);
        return { data, extension: key.endsWith('.mp4') ? ('mp4' as const) : ('png' as const) };
      }),
    );
  }
}

/** A job as the caller may see it: staff cancelling another user's job get its state, not its content. */
function viewFor(user: AuthUser, job: JobRecord): JobView {
  const view = toJobView(job);
  return String(job.owner) === user.id ? view : { ...view, items: [], settings: {} };
}

const contentTypeOf = (key: string) =>
  CONTENT_TYPE_OF_EXTENSION[key.slice(key.lastIndexOf('.') + 1)] ?? 'application/octet-stream';

/** The priced units of a record from before `units` was stored, from its inputs and settings. */
async function unitsOf(job: JobRecord, inputs: JobInput[]): Promise<number> {
  switch (job.tool) {
    case 'clone':
      return inputs.length * (job.params.amount ?? 1);
    case 'superResolution': {
      const { width = 1, height = 1 } = await sharp(inputs[0].data).metadata();
      return superResolutionUnits(width, height, job.params.scale ?? 2);
    }
    case 'faceSwapVideo':
      return job.params.durationSeconds ?? 0;
    default:
      return 1;
  }
}
