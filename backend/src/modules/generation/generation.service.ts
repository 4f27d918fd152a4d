import {
  HttpException,
  HttpStatus,
  Inject,
  Injectable,
  Logger,
  NotFoundException,
  OnApplicationBootstrap,
  OnModuleDestroy,
  ServiceUnavailableException,
} from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { Queue } from 'bull';
import { isValidObjectId, Model, Types } from 'mongoose';
import {
  isOpenJobState,
  JobMessages,
  JobSocketEvents,
  Messages,
  PromptMessages,
  ReportMessages,
  TOOL_LABELS,
  chargeReason,
  type ApiResponse,
  type ContentCheck,
  type JobSubmitContent,
  type JobTool,
  type JobView,
} from '@studio/contracts';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { assertActingAs, type AuthUser } from '../auth';
import { AgeAssuranceService } from '../age-assurance';
import { ApiKeySpending, type KeyCharge } from '../api-keys';
import { JobLiveness, LedgerService } from '../billing';
import { FoldersService } from '../folders';
import { RealtimePublisher } from '../realtime';
import { newStorageKey, StoragePort } from '../storage';
import { CopyFinder } from '../takedown';
import { EngineRegistry, toolQueueToken } from '../engines';
import { Job, reservationKeyOf, type JobParams, type JobRecord } from './job.schema';
import { JobLifecycle } from './job-lifecycle.service';
import { jobWork } from './job-eta';
import { OpenJobLimit } from './open-job-limit';
import { QueuePositions } from './queue-positions';
import { toJobView } from './job-view';
import type { NormalizedImage } from './image-input';
import { PeriodicTask } from '../../common/periodic-task';
import { isOutage } from '../../infrastructure/outage';

/** One stored input of a job: a normalized PNG image, or a video as uploaded. */
export interface JobInput {
  data: Buffer;
  extension: 'png' | 'mp4';
}

export interface JobRequest {
  tool: JobTool;
  author?: string;
  /** The folder for the results; without it, the tool's own folder ('Clones' ...). */
  folderId?: string;
  inputs: JobInput[];
  /** Priced units (images made, or seconds of video). */
  units: number;
  params?: JobParams;
  /** What the content check saw in the inputs before the request was accepted (face swaps). */
  inputChecks?: ContentCheck[];
  /** The submission's mark from the browser (JobRef), echoed on the job to its owner. */
  ref?: string;
}

/** Images as job inputs. */
export const imageInputs = (images: NormalizedImage[]): JobInput[] =>
  images.map((image) => ({ data: image.data, extension: 'png' }));

/** A queued job not seen by Bull after this long is added again (a crash between record and queue). */
const REQUEUE_AFTER_MS = 30_000;
const SWEEP_EVERY_MS = 30_000;
const RECENT_JOBS = 20;
const WAIT_POLL_MS = 150;

/**
 * Tool requests become jobs: checks (engine available, folder is the caller's, credits reserved)
 * happen before anything is queued; then one record and one Bull job with the record's id.
 */
@Injectable()
export class GenerationService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(GenerationService.name);
  private readonly queues: Record<JobTool, Queue>;
  private readonly sweeps = new PeriodicTask(() =>
    this.sweep().then(
      (s) => {
        if (s.requeued + s.failed > 0) this.logger.log(`job sweep: ${JSON.stringify(s)}`);
      },
      (err: Error) => this.logger.warn(`job sweep failed: ${err.message}`),
    ),
  );

  constructor(
    @InjectModel(Job.name) private readonly jobs: Model<Job>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly ledger: LedgerService,
    private readonly folders: FoldersService,
    private readonly storage: StoragePort,
    private readonly engines: EngineRegistry,
    private readonly lifecycle: JobLifecycle,
    private readonly realtime: RealtimePublisher,
    private readonly positions: QueuePositions,
    private readonly openJobs: OpenJobLimit,
    private readonly ageAssurance: AgeAssuranceService,
    private readonly keySpending: ApiKeySpending,
    private readonly copies: CopyFinder,
    liveness: JobLiveness,
    @Inject(toolQueueToken('clone')) clone: Queue,
    @Inject(toolQueueToken('superResolution')) superResolution: Queue,
    @Inject(toolQueueToken('faceSwap')) faceSwap: Queue,
    @Inject(toolQueueToken('inpaint')) inpaint: Queue,
    @Inject(toolQueueToken('generate')) generate: Queue,
    @Inject(toolQueueToken('faceSwapVideo')) faceSwapVideo: Queue,
  ) {
    this.queues = { clone, superResolution, faceSwap, inpaint, generate, faceSwapVideo };
    liveness.use((jobId) => this.holdsReservation(jobId));
  }

  async submit(user: AuthUser, request: JobRequest): Promise<JobView> {
    const [job] = await this.submitMany(user, [request]);
    return job;
  }

  /**
   * Several jobs that stand or fall together (a bulk batch): every reservation is made before any
   * job is queued; if one is refused, those already made are refunded and nothing is queued.
   */
  async submitMany(
    user: AuthUser,
    requests: JobRequest[],
    /** Runs once every reservation has been made, before any job is recorded. */
    beforeQueue?: () => Promise<void>,
  ): Promise<JobView[]> {
    // The per-user limit counts the whole batch, before anything is stored or reserved (429).
    const ids = requests.map(() => new Types.ObjectId());
    await this.openJobs.admit(user.id, ids.map(String));
    const prepared: JobRecord[] = [];
    try {
      for (const [i, request] of requests.entries()) prepared.push(await this.reserve(user, request, ids[i]));
      await beforeQueue?.();
    } catch (err) {
      const undone = await this.undo(user, prepared, ids.map(String), 'Batch not started');
      throw undone ? err : creditsReturning(err);
    }
    const views: JobView[] = [];
    for (const [i, record] of prepared.entries()) {
      try {
        await this.jobs.create(record);
        const { position, etaSeconds } = await this.positions.enqueue(record);
        const view: JobView = { ...toJobView(record), position: position || undefined, etaSeconds };
        this.realtime.toUser(user.id, JobSocketEvents.queued, { job: view, position });
        views.push(view);
      } catch (err) {
        // Redis or the database went away between the reservation and the queue: the jobs not
        // queued are taken back (record removed while still queued, credits returned), so the
        // answer (503) is true: nothing was charged. One a worker has taken after all stays.
        const notQueued: JobRecord[] = [];
        for (const job of prepared.slice(i)) {
          const removed = await this.jobs.deleteOne({ _id: job._id, state: 'queued' }).catch(() => null);
          if (removed?.deletedCount === 0) {
            const taken = await this.jobs
              .findById(job._id)
              .lean()
              .catch(() => null);
            if (taken) {
              views.push(toJobView(taken as JobRecord));
              continue;
            }
          }
          notQueued.push(job);
        }
        const undone = await this.undo(
          user,
          notQueued,
          notQueued.map((job) => String(job._id)),
          'Job not started',
        );
        if (views.length === 0) throw undone ? err : creditsReturning(err);
        return views;
      }
    }
    return views;
  }

  /**
   * Gives back what was prepared for jobs that will not run: credits, a key's spending, stored
   * inputs and their places under the open-job limit. Best effort, each step on its own: with a
   * part down some may fail, and what is left is returned by the ledger (giveBack) and the
   * open-job limit's own cleaning. False when some credits could not be given back yet.
   */
  private async undo(user: AuthUser, jobs: JobRecord[], ids: string[], reason: string): Promise<boolean> {
    let undone = true;
    for (const job of jobs) {
      if (!(await this.giveBack(String(job._id), reason))) undone = false;
      if (job.apiKey)
        await attempted(this.keySpending.giveBack(job.apiKey, String(job._id), job.cost), this.logger);
      await this.dropInputs(job.inputs);
    }
    await attempted(this.openJobs.release(user.id, ids), this.logger);
    return undone;
  }

  /**
   * Refunds a job's reservation that will not run. False when that failed (a part down): whether
   * the credits were taken is then unknown, and the ledger gives them back as soon as it can.
   */
  private async giveBack(jobId: string, reason: string): Promise<boolean> {
    if (await attempted(this.ledger.refund(reservationKeyOf(jobId), reason), this.logger)) return true;
    this.ledger.refundSoon(reservationKeyOf(jobId), reason);
    return false;
  }

  /** Checks, stores the inputs and reserves the credits of one request; queues nothing. */
  private async reserve(user: AuthUser, request: JobRequest, jobId: Types.ObjectId): Promise<JobRecord> {
    assertActingAs(user, request.author);
    // Before anything is stored or charged: the photo tools and sexual tags need an age-assured account.
    await this.ageAssurance.assertAllowed(user, request.tool, request.params);
    const unavailable = await this.engines.unavailability(request.tool);
    if (unavailable === 'not_configured') {
      throw new ServiceUnavailableException(
        request.tool === 'generate' ? PromptMessages.notConfigured : JobMessages.engineUnavailable,
      );
    }
    // A remote GPU server that does not answer: refused before anything is stored or charged.
    if (unavailable) throw new ServiceUnavailableException(JobMessages.engineUnreachable);
    const folderId = request.folderId
      ? (await this.folders.assertFolder(user, request.folderId), request.folderId)
      : await this.folders.toolFolder(user, TOOL_LABELS[request.tool]);
    // A picture removed after a report is not taken as a tool's input (before anything is charged).
    // Hashed for that only while the block list has entries; the hashes that let a report find a
    // stored input (served back for "Run again") are otherwise made when the job runs.
    const imageIndexes = request.inputs.flatMap((input, i) => (input.extension === 'mp4' ? [] : [i]));
    const screened = await this.copies.screenInputs(imageIndexes.map((i) => request.inputs[i].data));
    if (screened.blocked) {
      throw new HttpException(ReportMessages.blockedInput, HttpStatus.UNPROCESSABLE_ENTITY);
    }
    const cost = this.ledger.quote(request.tool, request.units);
    const id = String(jobId);

    // Inputs go to storage first (a worker on another machine reads them there); no money yet.
    const inputs = request.inputs.map((input, i) =>
      newStorageKey(user.id, input.extension, `${id}:input:${i}`),
    );
    // All or none: a store that fails one (a full disk, S3 down: 503) keeps none of them. The
    // person waits: a store that stalls is given up on within the request's wait (forRequest),
    // and what did land is removed behind the answer, which must not wait on that store again.
    const stored = await Promise.allSettled(
      inputs.map((key, i) => this.storage.forRequest().put(key, request.inputs[i].data)),
    );
    const notStored = stored.find((put) => put.status === 'rejected');
    if (notStored) {
      void this.dropInputs(inputs);
      throw notStored.reason;
    }

    // A key's monthly cap first: what it refuses is never reserved (and given back if the ledger refuses).
    let keyCharge: KeyCharge | undefined;
    try {
      keyCharge = user.apiKey ? await this.keySpending.charge(user.apiKey, id, cost) : undefined;
    } catch (err) {
      await this.dropInputs(inputs);
      throw err;
    }
    let refused = false;
    try {
      const reserved = await this.ledger.reserve({
        key: reservationKeyOf(id),
        userId: user.id,
        username: user.username,
        amount: cost,
        reason: chargeReason(request.tool, request.units, request.params?.scale),
        jobId: id,
        tool: request.tool,
      });
      if (!reserved.ok) {
        refused = true;
        throw new HttpException(Messages.notEnoughCredits, HttpStatus.PAYMENT_REQUIRED);
      }
      await this.copies.recordInputs(
        id,
        user.id,
        screened.prints.map((print, n) => ({
          index: imageIndexes[n],
          storageKey: inputs[imageIndexes[n]],
          print,
        })),
      );
    } catch (err) {
      // Refused, or a part went down half way (the reservation may have reached the balance before
      // its entry was marked): whatever was taken is given back now, not after the ledger's hold.
      const undone = refused || (await this.giveBack(id, 'Job not started'));
      if (keyCharge) await attempted(this.keySpending.giveBack(keyCharge, id, cost), this.logger);
      await this.dropInputs(inputs);
      throw undone ? err : creditsReturning(err);
    }
    return {
      _id: jobId,
      owner: new Types.ObjectId(user.id),
      username: user.username,
      tool: request.tool,
      state: 'queued',
      progress: 0,
      cost,
      folder: new Types.ObjectId(folderId),
      inputs,
      units: request.units,
      params: { ...request.params, work: jobWork(request.tool, request.inputs, request.units) },
      outputs: [],
      ...(request.inputChecks ? { safety: { inputs: request.inputChecks } } : {}),
      attempts: 0,
      settled: false,
      createdAt: new Date(),
      ...(request.ref ? { ref: request.ref } : {}),
      ...(keyCharge ? { apiKey: keyCharge } : {}),
    };
  }

  private async dropInputs(keys: string[]): Promise<void> {
    await Promise.all(keys.map((key) => this.storage.delete(key).catch(() => undefined)));
  }

  /** 'success' with the result, 'processing' while it runs, or the job's own failure message. */
  async answer(user: AuthUser, submitted: JobView, waitMs: number): Promise<ApiResponse<JobSubmitContent>> {
    let job = submitted;
    if (waitMs > 0) {
      try {
        job = await this.waitFor(user, submitted._id, waitMs);
      } catch (err) {
        // Accepted and reserved already: a part lost while waiting must not turn that into a 503
        // saying nothing was charged (inviting a second submission). The job runs on; the tray follows it.
        if (!isOutage(err)) throw err;
        this.logger.warn(`job ${submitted._id}: answered 'processing', a part went down while waiting`);
      }
    }
    if (job.state === 'failed' || job.state === 'cancelled') {
      // The ended job comes with the refusal (JobEndedRefusal): a busy server may answer this before
      // the cancel that ended it, and the tab must not take a cancelled job for a failed request.
      throw new HttpException(
        { message: job.error ?? JobMessages.failed, extra: { job } },
        HttpStatus.UNPROCESSABLE_ENTITY,
      );
    }
    if (job.state === 'succeeded') return { message: 'success', content: { job, url: job.items[0]?.url } };
    return { message: 'processing', content: { job } };
  }

  /** The job once it has finished, or as it is when `ms` have passed. */
  async waitFor(user: AuthUser, jobId: string, ms: number): Promise<JobView> {
    const deadline = Date.now() + ms;
    for (;;) {
      const job = await this.get(user, jobId);
      if (!isOpenJobState(job.state) || Date.now() >= deadline) return job;
      await new Promise((resolve) => setTimeout(resolve, WAIT_POLL_MS));
    }
  }

  async get(user: AuthUser, jobId: string): Promise<JobView> {
    const job = isValidObjectId(jobId) ? await this.jobs.findById(jobId).lean() : null;
    if (!job || String(job.owner) !== user.id) throw new NotFoundException(JobMessages.notFound);
    return toJobView(job as JobRecord);
  }

  /**
   * The caller's most recent jobs, newest first (the job tray), and every job of each bulk batch
   * among them: the tray counts a batch from its jobs, so a batch larger than the window (or cut by
   * it) must come whole, or "30 of 30" would read "19 of 19".
   */
  async recent(user: AuthUser): Promise<JobView[]> {
    const owner = new Types.ObjectId(user.id);
    const rows = (await this.jobs
      .find({ owner })
      .sort({ createdAt: -1 })
      .limit(RECENT_JOBS)
      .lean()) as JobRecord[];
    const batchIds = [...new Set(rows.map((row) => row.params?.batchId).filter((id): id is string => !!id))];
    // One indexed equality per batch (params.batchId), owner-checked.
    const batches = await Promise.all(
      batchIds.map((batchId) => this.jobs.find({ 'params.batchId': batchId, owner }).lean()),
    );
    const byId = new Map(rows.map((row) => [String(row._id), row]));
    for (const row of batches.flat() as JobRecord[]) byId.set(String(row._id), row);
    return [...byId.values()]
      .sort((a, b) => new Date(b.createdAt).getTime() - new Date(a.createdAt).getTime())
      .map((row) => toJobView(row));
  }

  /** Adds the Bull job (a no-op when one with this id exists) in its fair-share place. */
  private async enqueue(job: JobRecord): Promise<void> {
    await this.positions.enqueue(job);
  }

  /** Open jobs with their place in line and estimated time (queue-positions.ts). */
  withPlaces(views: JobView[]): Promise<JobView[]> {
    return this.positions.withPlaces(views);
  }

  /** Asked by the ledger's recovery before it returns an old reservation. */
  private async holdsReservation(jobId: string): Promise<boolean> {
    if (!isValidObjectId(jobId)) return false;
    const job = await this.jobs.findById(jobId).lean();
    // A succeeded job's reservation is captured by settle(), a failed one's refunded by it.
    return !!job && job.state !== 'failed' && job.state !== 'cancelled';
  }

  /**
   * Finishes what a crash interrupted: queued jobs that never reached Bull are added again, jobs
   * Bull gave up on are failed (and refunded, or succeeded if their capture won). A job's end and
   * its settlement are one write (job-state.ts), so no ended job is left unsettled.
   */
  async sweep(): Promise<{ requeued: number; failed: number }> {
    const stats = { requeued: 0, failed: 0 };
    const cutoff = new Date(Date.now() - REQUEUE_AFTER_MS);
    // Jobs that have not ended (an indexed equality; the age is checked here).
    const open = await this.jobs
      .find({ state: { $in: ['queued', 'running'] } })
      .limit(2000)
      .lean();
    const stale = (open as JobRecord[]).filter((row) => new Date(row.createdAt) <= cutoff);
    for (const row of stale.slice(0, 500)) {
      const bullJob = await this.queues[row.tool].getJob(String(row._id));
      if (!bullJob) {
        await this.enqueue(row);
        stats.requeued += 1;
      } else if (await bullJob.isFailed()) {
        await this.lifecycle.failed(row, bullJob.failedReason ?? JobMessages.failed);
        stats.failed += 1;
      }
    }
    return stats;
  }

  onApplicationBootstrap(): void {
    this.sweeps.start(SWEEP_EVERY_MS, { now: true });
  }

  async onModuleDestroy(): Promise<void> {
    await this.sweeps.stop();
  }
}

/** One step of undoing a submission: true when it was done, false (logged) when it failed. */
function attempted(step: Promise<unknown>, logger: Logger): Promise<boolean> {
  return step.then(
    () => true,
    (err: Error) => (logger.warn(`undoing a submission: ${err.message}`), false),
  );
}

/**
 * The error a submission answers with when its credits could not be given back yet: a part down
 * must not answer "Nothing was charged" then (they come back by themselves: LedgerService.refundSoon).
 */
function creditsReturning(err: unknown): unknown {
  return isOutage(err) ? new ServiceUnavailableException(Messages.briefOutageCreditsReturning) : err;
}
