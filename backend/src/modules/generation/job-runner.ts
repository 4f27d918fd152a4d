import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { InjectModel } from '@nestjs/mongoose';
import type { Job as BullJob, Queue } from 'bull';
import { Model, Types } from 'mongoose';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  GENERATED_IMAGE_SIZE,
  JobMessages,
  JobTools,
  ReportMessages,
  SAFETY_REASONS,
  TOOL_LABELS,
  sexualScore,
  VIDEO_FRAMES_CHECKED,
  type ContentCheck,
  type ContentItem,
} from '@studio/contracts';
import {
  CapabilityUnavailableError,
  EngineCrashedError,
  EngineInputError,
  remoteFaultOf,
  sampleFrames,
  type EncodedImage,
  type InferenceEngine,
  type RunContext,
} from '@studio/inference';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { AgeAssuranceService } from '../age-assurance';
import { ContentSafety, describeChecks, SafetyLog, type OutputVerdict } from '../content-safety';
import { FoldersService } from '../folders';
import { ProvenanceService } from '../provenance';
import { StorageFaultError, StoragePort } from '../storage';
import { CopyFinder, type StoredPrint } from '../takedown';
import {
  CAPABILITY_OF,
  EngineFaults,
  EngineRegistry,
  concurrencyOf,
  runsQueue,
  toolQueueToken,
} from '../engines';
import { JobCancelSignals } from './job-control.signals';
import { Job, type JobRecord } from './job.schema';
import { JobLifecycle } from './job-lifecycle.service';
import { QueuePositions } from './queue-positions';

/**
 * Progress is pushed and written at most this often per job; a step reported inside the window
 * goes out at its end (never dropped), so a long step after a quick one still shows.
 */
export const PROGRESS_EVERY_MS = 250;

const CONTENT_TYPES = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  mp4: 'video/mp4',
} as const;

interface EncodedVideo {
  data: Buffer;
  format: 'mp4';
}
/** What a job makes: images, or one video. */
type Output = EncodedImage | EncodedVideo;

/**
 * The worker side of the pipeline: takes jobs from the tool queues this process runs
 * (WORKER_QUEUES, with per-queue concurrency), calls the engine, stores the results and ends the
 * job through JobLifecycle. Transient errors are thrown back to Bull, which retries with back-off;
 * input errors and the last attempt fail the job, which refunds it.
 */
@Injectable()
export class JobRunner implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(JobRunner.name);
  private readonly queues: Queue[] = [];
  /** The Bull jobs this process is running, to hand back if shutdown cannot wait for them. */
  private readonly running = new Set<BullJob>();
  /** Set once running jobs were handed back: whatever this process still computes is dropped. */
  private handedBack = false;
  /**
   * Aborted when running jobs are handed back: engines stop their work (a remote engine cancels
   * its prediction or prompt, so the worker that takes the job over does not pay for a second).
   */
  private readonly handBack = new AbortController();
  /** One per job running here, aborted when its owner or staff cancels it (JobCancelSignals). */
  private readonly cancels = new Map<string, AbortController>();

  constructor(
    @InjectModel(Job.name) private readonly jobs: Model<Job>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly engines: EngineRegistry,
    private readonly lifecycle: JobLifecycle,
    private readonly folders: FoldersService,
    private readonly storage: StoragePort,
    private readonly modules: ModuleRef,
    private readonly positions: QueuePositions,
    private readonly cancelSignals: JobCancelSignals,
    private readonly provenance: ProvenanceService,
    private readonly safety: ContentSafety,
    private readonly safetyLog: SafetyLog,
    private readonly copies: CopyFinder,
    private readonly ageAssurance: AgeAssuranceService,
    private readonly engineFaults: EngineFaults,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (JobTools.some((tool) => runsQueue(this.config, tool))) {
      await this.cancelSignals.subscribe((jobId) =>
        this.cancels.get(jobId)?.abort(new Error('cancelled by its owner or staff')),
      );
    }
    this.engines.warmUpLocal(JobTools.filter((tool) => runsQueue(this.config, tool)));
    for (const tool of JobTools) {
      if (!runsQueue(this.config, tool)) continue;
      const queue = this.modules.get<Queue>(toolQueueToken(tool), { strict: false });
      this.queues.push(queue);
      void queue.process(concurrencyOf(this.config, tool), (job: BullJob<{ jobId: string }>) =>
        this.track(job, () => this.run(job)),
      );
      queue.on('error', (err) => this.logger.warn(`${tool} queue: ${err.message}`));
    }
  }

  /**
   * Graceful shutdown (SIGTERM): take no new jobs, give running ones SHUTDOWN_GRACE_MS to finish,
   * then hand the rest back: their locks are released, so another worker's stalled-job check
   * requeues them without waiting for the lock to expire, and what this process still computes
   * for them is dropped. Reruns are safe (item ids and settlement are per job).
   */
  async beforeApplicationShutdown(): Promise<void> {
    if (!this.queues.length || this.handedBack) return;
    const finished = Promise.all(this.queues.map((queue) => queue.pause(true))).then(() => true);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), this.config.SHUTDOWN_GRACE_MS);
    });
    const inTime = await Promise.race([finished, timedOut]);
    clearTimeout(timer);
    if (inTime) {
      this.logger.log('worker stopped: no job running');
      return;
    }
    this.handedBack = true;
    this.handBack.abort(new Error('handed back to the queue at shutdown'));
    const handedBack = [...this.running];
    await Promise.all(handedBack.map((job) => job.releaseLock().catch(() => undefined)));
    // Close without waiting for the jobs still running here; their results would be discarded.
    await Promise.all(this.queues.map((queue) => queue.close(true).catch(() => undefined)));
    this.logger.warn(`worker stopped: handed ${handedBack.length} running job(s) back to the queue`);
  }

  private async track<T>(job: BullJob, work: () => Promise<T>): Promise<T> {
    this.running.add(job);
    try {
      return await work();
    } finally {
      this.running.delete(job);
    }
  }

  async run(bullJob: BullJob<{ jobId: string }>): Promise<void> {
    // Registered before the start, so a cancel that lands any time during the run is heard.
    const cancel = new AbortController();
    this.cancels.set(bullJob.data.jobId, cancel);
    try {
      await this.runJob(bullJob, cancel.signal);
    } finally {
      this.cancels.delete(bullJob.data.jobId);
    }
  }

  /**
   * `cancelled` is aborted only after a cancel has ended the job (its refund won): what the run
   * still computes is dropped, and it is neither retried nor failed. A run that had already stored
   * its results still ends through the lifecycle, whose lost capture removes them.
   */
  private async runJob(bullJob: BullJob<{ jobId: string }>, cancelled: AbortSignal): Promise<void> {
    const job = await this.lifecycle.started(bullJob.data.jobId);
    if (!job) {
      // Ended before (a crash may have cut its announcements short), or the record is gone.
      const ended = await this.jobs.findById(bullJob.data.jobId).lean();
      if (ended) await this.lifecycle.settle(ended as JobRecord);
      return;
    }
    // The owner sees it leave the line at once; the jobs behind it move up a place.
    this.lifecycle.pushProgress(job, job.progress);
    this.positions.announce(job.tool);
    const progress = this.progressReporter(job, bullJob, cancelled);
    // Dropped when handed back (another worker has it now) or cancelled (ended already).
    const dropped = () => this.handedBack || cancelled.aborted;
    try {
      const engine = this.engines.engineFor(job.tool);
      if (!engine) throw new CapabilityUnavailableError(CAPABILITY_OF[job.tool]);
      const images = await this.execute(engine, job, {
        onProgress: progress.report,
        signal: AbortSignal.any([this.handBack.signal, cancelled]),
      });
      await progress.flush();
      if (dropped()) return;
      // Nobody sees an output before the content check has (on the engine pool, like the work).
      const verdict = await this.judge(job, images).catch((err: unknown) => {
        throw new ContentCheckFailedError(err);
      });
      if (dropped()) return;
      if (verdict.kind === 'withhold') {
        await this.recordDecision(job, 'withheld', verdict);
        await this.lifecycle.failed(job, SAFETY_REASONS[verdict.reason]);
        return;
      }
      const items = await this.store(job, images, verdict);
      if (verdict.kind === 'hold') await this.recordDecision(job, 'held', verdict);
      await this.lifecycle.succeeded(job, items);
      this.engineFaults.succeeded(job.tool);
      this.positions.finished(job.tool, bullJob); // its pace prices the waiting jobs' ETA
    } catch (err) {
      await progress.flush();
      if (dropped()) return;
      // A dead engine thread (out of memory, exit) would most likely die again: no retry. A content
      // check that failed after the work is not retried either (a retry would redo the whole work):
      // the job fails at once, refunded, with its reason code.
      const permanent =
        err instanceof EngineInputError ||
        err instanceof CapabilityUnavailableError ||
        err instanceof EngineCrashedError ||
        err instanceof ContentCheckFailedError ||
        err instanceof BlockedCopyError ||
        // A full disk stays full for longer than the back-off: no second GPU run for nothing.
        (err instanceof StorageFaultError && err.fault === 'full');
      if (err instanceof ContentCheckFailedError) await this.recordCheckFailure(job, err);
      // A GPU server that is down, stalls, errs or sends garbage shows on /api/health (each attempt).
      const fault = remoteFaultOf(err);
      if (fault) this.engineFaults.met(job.tool, fault);
      const lastAttempt = bullJob.attemptsMade + 1 >= (bullJob.opts.attempts ?? 1);
      if (!permanent && !lastAttempt) {
        this.logger.warn(`job ${job._id} attempt ${bullJob.attemptsMade + 1} failed: ${String(err)}`);
        throw err;
      }
      this.logger.warn(`job ${job._id} failed: ${String(err)}`);
      await this.lifecycle.failed(job, userMessage(err));
    }
  }

  /**
   * A job's stored image inputs are served back to their owner, so a report finds them like
   * outputs: hashed here, on the worker before the engine runs, rather than while the user's
   * request waits for the pool. Once per job (a rerun finds them recorded).
   */
  private async recordInputPrints(job: JobRecord, inputs: Buffer[]): Promise<void> {
    const images = imageInputsOf(job);
    const indexes = job.inputs.flatMap((key, i) => (images.includes(key) ? [i] : []));
    if (indexes.length === 0 || (await this.copies.inputRecorded(String(job._id), indexes[0]))) return;
    const prints = await this.copies.fingerprint(
      indexes.map((i) => inputs[i]),
      false,
    );
    await this.copies.recordInputs(
      String(job._id),
      String(job.owner),
      indexes.map((index, n) => ({ index, storageKey: job.inputs[index], print: prints[n] })),
    );
  }

  private async execute(engine: InferenceEngine, job: JobRecord, context: RunContext): Promise<Output[]> {
    const { onProgress = () => undefined, signal } = context;
    const inputs = await Promise.all(job.inputs.map((key) => this.readInput(key)));
    await this.recordInputPrints(job, inputs);
    switch (job.tool) {
      case 'clone': {
        const amount = job.params.amount ?? 1;
        const made: Output[] = [];
        for (const [i, image] of inputs.entries()) {
          const share = (f: number) => onProgress((i + f) / inputs.length);
          made.push(...(await engine.clone({ image, amount }, { onProgress: share, signal })));
        }
        return made;
      }
      case 'superResolution':
        return [await engine.superResolve({ image: inputs[0], scale: job.params.scale ?? 2 }, context)];
      case 'faceSwap':
        return [
          await engine.faceSwap(
            {
              face: inputs[0],
              target: inputs[1],
              sourceFace: job.params.sourceFace,
              targetFaces: job.params.targetFaces,
            },
            context,
          ),
        ];
      case 'inpaint':
        return [
          await engine.inpaint(
            { image: inputs[0], mask: inputs[1], prompt: job.params.prompt ?? '' },
            context,
          ),
        ];
      case 'generate':
        return [
          await engine.generate(
            {
              prompt: job.params.prompt ?? '',
              width: job.params.width ?? GENERATED_IMAGE_SIZE,
              height: job.params.height ?? GENERATED_IMAGE_SIZE,
            },
            context,
          ),
        ];
      case 'faceSwapVideo':
        return [await this.swapVideo(engine, inputs[0], inputs[1], job.params, context)];
    }
  }

  /** The engine works on files: the video goes to a temporary folder and the result comes back. */
  private async swapVideo(
    engine: InferenceEngine,
    video: Buffer,
    face: Buffer,
    choice: { sourceFace?: number; targetFace?: number },
    context: RunContext,
  ): Promise<EncodedVideo> {
    const dir = await mkdtemp(join(tmpdir(), 'video-swap-'));
    try {
      const videoPath = join(dir, 'input');
      const outputPath = join(dir, 'output.mp4');
      await writeFile(videoPath, video);
      const { sourceFace, targetFace } = choice;
      await engine.faceSwapVideo({ videoPath, face, outputPath, sourceFace, targetFace }, context);
      return { data: await readFile(outputPath), format: 'mp4' };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /**
   * Looks at the job's image inputs (those the face swap's check has not already looked at) and
   * its outputs — an image itself, a video a few frames spread over it — stores what it saw with
   * the job, and says what the policy decides. The verdict has one check per output (a video's is
   * its most sexual frame's).
   */
  private async judge(job: JobRecord, outputs: Output[]): Promise<OutputVerdict> {
    const inputs =
      job.safety?.inputs ??
      (
        await this.safety.inspect(await Promise.all(imageInputsOf(job).map((key) => this.readInput(key))))
      ).map(({ scores, faces }) => ({ scores, faces }));
    const looked = await Promise.all(
      outputs.map((output) => (output.format === 'mp4' ? this.framesOf(output.data) : [output.data])),
    );
    // The owner's age check is read now, when the outputs are judged, not when the job was
    // accepted: one record decides (no copy on the job to go stale), a check passed while the job
    // waited counts, and jobs queued before this rule are judged by it too. It is read only when an
    // output is sexual, so a brief database error does not fail (and refund) every job of that
    // moment; when it is needed and cannot be read, the job fails closed (check_failed).
    const owner = String(job.owner);
    const judged = await this.safety.judgeOutputs(job.tool, looked.flat(), {
      maySeeSexual: () => this.ageAssurance.maySeeSexualContent(owner),
    });
    const verdict = { ...judged, checks: worstPerOutput(looked, judged.checks) } as OutputVerdict;
    const safety = {
      inputs,
      outputs: verdict.checks,
      verdict: verdict.kind,
      ...(verdict.kind === 'show' ? {} : { reason: verdict.reason }),
    };
    await this.jobs.updateOne({ _id: job._id }, { $set: { safety } });
    return verdict;
  }

  /** Frames of a video output for the content check (ffmpeg, a child process, on a temporary file). */
  private async framesOf(video: Buffer): Promise<Buffer[]> {
    const dir = await mkdtemp(join(tmpdir(), 'video-check-'));
    try {
      const path = join(dir, 'output.mp4');
      await writeFile(path, video);
      return await sampleFrames(path, VIDEO_FRAMES_CHECKED);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  private async recordCheckFailure(job: JobRecord, err: ContentCheckFailedError): Promise<void> {
    await this.jobs.updateOne({ _id: job._id }, { $set: { 'safety.reason': 'check_failed' } });
    await this.safetyLog.record({
      userId: String(job.owner),
      username: job.username,
      action: 'withheld',
      reason: 'check_failed',
      tool: job.tool,
      jobId: String(job._id),
      detail: `content check failed: ${String(err.cause)}`,
    });
  }

  private async recordDecision(
    job: JobRecord,
    action: 'withheld' | 'held',
    verdict: Exclude<OutputVerdict, { kind: 'show' }>,
  ): Promise<void> {
    await this.safetyLog.record({
      userId: String(job.owner),
      username: job.username,
      action,
      reason: verdict.reason,
      tool: job.tool,
      jobId: String(job._id),
      detail: describeChecks(verdict.checks),
    });
  }

  private async readInput(key: string): Promise<Buffer> {
    const data = await this.storage.read(key);
    if (!data) throw new EngineInputError('bad_request', JobMessages.imageRequired);
    return data;
  }

  /** Stores each result as an item with an id derived from the job, so a rerun stores it once. */
  private async store(job: JobRecord, images: Output[], verdict: OutputVerdict): Promise<ContentItem[]> {
    const owner = { id: String(job.owner), username: job.username, role: 'user' as const };
    // Every output of every engine passes here: watermarked and C2PA-signed (in the provenance
    // child process, off this event loop) before it is stored, so no tool delivers an unmarked file.
    const marked = await this.provenance.markOutputs(
      {
        jobId: String(job._id),
        ownerId: String(job.owner),
        username: job.username,
        tool: job.tool,
        inputs: this.provenance.enabled
          ? await Promise.all(job.inputs.map((key) => this.readInput(key)))
          : [],
        outputsPerInput: job.tool === 'clone' ? (job.params.amount ?? 1) : undefined,
        when: new Date(),
      },
      images.map((image, i) => ({
        itemId: outputItemId(String(job._id), i),
        data: image.data,
        format: image.format,
      })),
    );
    // A picture removed after a valid report is not made again: its hashes (on the engine pool)
    // against the block list; the job fails and is refunded. Kept hashes find copies later.
    const imageIndexes = images.flatMap((image, i) => (image.format === 'mp4' ? [] : [i]));
    const prints = await this.copies.fingerprint(
      imageIndexes.map((i) => marked[i]),
      true,
    );
    // Videos: the hashes of sampled frames (ffmpeg picks them, the engine pool hashes them).
    const videoIndexes = images.flatMap((image, i) => (image.format === 'mp4' ? [i] : []));
    const videoPrints: StoredPrint[] = [];
    for (const i of videoIndexes) videoPrints.push(await this.copies.fingerprintVideo(marked[i]));
    for (const print of [...prints, ...videoPrints])
      if (await this.copies.isBlocked(print)) throw new BlockedCopyError();
    await this.copies.record(
      [...imageIndexes, ...videoIndexes].map((index, n) => ({
        itemId: outputItemId(String(job._id), index),
        ownerId: String(job.owner),
        print: [...prints, ...videoPrints][n],
      })),
    );
    return this.folders.addItems(
      owner,
      String(job.folder),
      images.map((image, i) => ({
        itemId: outputItemId(String(job._id), i),
        data: marked[i],
        kind: image.format === 'mp4' ? ('video' as const) : ('image' as const),
        contentType: CONTENT_TYPES[image.format],
        title: titleOf(job, i, images.length),
        jobId: String(job._id),
        check: verdict.checks[i],
        // A held output is stored for the moderator, not shown (the policy holds the whole job's).
        ...(verdict.kind === 'hold' ? { heldFor: verdict.reason } : {}),
      })),
    );
  }

  /**
   * Progress from the engine, pushed and written at most every PROGRESS_EVERY_MS (trailing: the
   * latest step of a window is sent at its end), only ever upwards, writes one at a time in
   * order; `flush` drops a pending step and waits for the last write before the job ends.
   */
  private progressReporter(job: JobRecord, bullJob: BullJob, cancelled: AbortSignal) {
    let latest = 0;
    let sent = 0;
    let sentAt = 0;
    let timer: NodeJS.Timeout | undefined;
    let writes = Promise.resolve();
    const send = () => {
      timer = undefined;
      if (latest <= sent || this.handedBack || cancelled.aborted) return;
      const percent = latest;
      sent = percent;
      sentAt = Date.now();
      this.lifecycle.pushProgress(job, percent);
      writes = writes
        .then(() => Promise.all([bullJob.progress(percent), this.lifecycle.recordProgress(job, percent)]))
        .then(
          () => undefined,
          (err) => this.logger.warn(`progress of job ${job._id} not saved: ${String(err)}`),
        );
    };
    const report = (fraction: number) => {
      const percent = Math.max(0, Math.min(99, Math.floor(fraction * 100)));
      if (percent <= latest) return;
      latest = percent;
      const wait = PROGRESS_EVERY_MS - (Date.now() - sentAt);
      if (wait <= 0) {
        clearTimeout(timer);
        send();
      } else {
        timer ??= setTimeout(send, wait);
      }
    };
    const flush = () => {
      clearTimeout(timer);
      timer = undefined;
      return writes;
    };
    return { report, flush };
  }
}

/**
 * Output i of a job has this item id: the job's timestamp (so items sort by time) and a hash of
 * job id and index, so a rerun of the job stores the same item.
 */
export function outputItemId(jobId: string, index: number): string {
  const digest = createHash('sha256').update(`${jobId}:output:${index}`).digest('hex');
  return new Types.ObjectId(`${jobId.slice(0, 8)}${digest.slice(0, 16)}`).toHexString();
}

/** One check per output from the checks of its images (an image's one, a video's frames): the most sexual. */
function worstPerOutput(looked: Buffer[][], checks: ContentCheck[]): ContentCheck[] {
  let next = 0;
  return looked.map((images) => {
    const own = checks.slice(next, (next += images.length));
    return own.reduce((worst, check) =>
      sexualScore(check.scores) > sexualScore(worst.scores) ? check : worst,
    );
  });
}

/** Storage keys of a job's image inputs: not Magic Brush's mask, not the video of a video swap. */
function imageInputsOf(job: JobRecord): string[] {
  switch (job.tool) {
    case 'inpaint':
      return job.inputs.slice(0, 1);
    case 'faceSwapVideo':
      return job.inputs.slice(1, 2);
    default:
      return job.inputs;
  }
}

/** Item titles: a batch's name, else the tool's, numbered when a job makes several. */
function titleOf(job: JobRecord, index: number, count: number): string {
  const name = job.params?.batchName ?? TOOL_LABELS[job.tool];
  return count > 1 ? `${name} ${index + 1}` : name;
}

/** The content check of a job's outputs threw (classifier or engine pool): the job fails, refunded. */
class ContentCheckFailedError extends Error {
  constructor(cause: unknown) {
    super(`content check failed: ${String(cause)}`, { cause });
  }
}

/** An output matched the block list of pictures removed after a report: withheld, refunded. */
class BlockedCopyError extends Error {
  constructor() {
    super('output matches a picture removed after a report');
  }
}

function userMessage(err: unknown): string {
  if (err instanceof BlockedCopyError) return ReportMessages.blockedOutput;
  if (err instanceof ContentCheckFailedError) return SAFETY_REASONS.check_failed;
  if (err instanceof EngineInputError) return err.message;
  if (err instanceof CapabilityUnavailableError) return JobMessages.engineUnavailable;
  if (err instanceof EngineCrashedError) return JobMessages.engineCrashed;
  if (err instanceof StorageFaultError)
    return err.fault === 'full' ? JobMessages.storageFull : JobMessages.storageUnavailable;
  switch (remoteFaultOf(err)) {
    case 'down':
      return JobMessages.engineDown;
    case 'timeout':
      return JobMessages.engineTimeout;
    case 'server_error':
      return JobMessages.engineServerError;
    case 'bad_output':
      return JobMessages.engineBadOutput;
    default:
      return JobMessages.failed;
  }
}
