import { Inject, Injectable, Logger } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { InjectModel } from '@nestjs/mongoose';
import type { Job as BullJob, Queue } from 'bull';
import { isValidObjectId, Model, Types } from 'mongoose';
import {
  isOpenJobState,
  JobSocketEvents,
  type JobPlace,
  type JobTool,
  type JobView,
} from '@studio/contracts';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { RealtimePublisher } from '../realtime';
import { fairShareTag } from './fair-share';
import { Job, type JobRecord } from './job.schema';
import {
  DURATIONS_KEPT,
  etaBucket,
  median,
  placesIn,
  type Line,
  type LineData,
  type Place,
  type WaitingJob,
} from './job-eta';
import { concurrencyOf, jobOptions, toolQueueToken } from '../engines';

/**
 * Places in line shown while a job waits. Positions of the jobs still waiting only change when one
 * leaves the waiting list (a worker takes it, or it is cancelled) or a newcomer is put ahead of
 * them (fair share), so they are computed then: one read of the queue's line and one indexed read
 * of the owners, and each owner gets one push with their own jobs' places and estimated times.
 * Jobs further back than this are told their place as they move up.
 */
export const POSITIONS_TOLD = 200;

/**
 * At most one announcement per tool in this window: under a backlog jobs start many times a
 * second, and each announcement reads up to POSITIONS_TOLD jobs. Starts within the window are
 * told once, when it ends, from the list as it is then.
 */
export const POSITIONS_EVERY_MS = 500;

/**
 * One tool's line in one round trip: the first waiting jobs (next first) with their Bull data,
 * the running ones with their progress and start, the jobs asked about that are not in the window
 * (with their place, 0 when not waiting), and the recent durations of each bucket.
 * KEYS: 1 wait list, 2 active list, 3.. duration lists. ARGV: 1 job key prefix, 2 window, 3.. ids.
 */
const LINE_SCRIPT = `
local prefix = ARGV[1]
local window = redis.call('LRANGE', KEYS[1], -tonumber(ARGV[2]), -1)
local total = redis.call('LLEN', KEYS[1])
local seen = {}
local waiting = {}
for i = #window, 1, -1 do
  local id = window[i]
  seen[id] = true
  waiting[#waiting + 1] = id
  waiting[#waiting + 1] = redis.call('HGET', prefix .. id, 'data') or ''
end
local running = {}
for _, id in ipairs(redis.call('LRANGE', KEYS[2], 0, -1)) do
  seen[id] = true
  local f = redis.call('HMGET', prefix .. id, 'data', 'progress', 'processedOn')
  running[#running + 1] = id
  running[#running + 1] = f[1] or ''
  running[#running + 1] = f[2] or '0'
  running[#running + 1] = f[3] or '0'
end
local others = {}
for i = 3, #ARGV do
  local id = ARGV[i]
  if not seen[id] then
    local data = redis.call('HGET', prefix .. id, 'data')
    if data then
      local index = redis.call('LPOS', KEYS[1], id)
      others[#others + 1] = id
      others[#others + 1] = data
      others[#others + 1] = index and (total - index) or 0
    end
  end
end
local rates = {}
for i = 3, #KEYS do rates[#rates + 1] = redis.call('LRANGE', KEYS[i], 0, -1) end
return {total, waiting, running, others, rates}
`;

type LineReply = [number, string[], string[], (string | number)[], string[][]];

/** Duration buckets of a tool (super resolution has one per factor). */
const bucketsOf = (tool: JobTool) =>
  tool === 'superResolution' ? [etaBucket(tool, { scale: 2 }), etaBucket(tool, { scale: 4 })] : [tool];

@Injectable()
export class QueuePositions {
  private readonly logger = new Logger(QueuePositions.name);
  /** Per tool: whether another start came while the window was open. */
  private readonly windows = new Map<JobTool, { again: boolean }>();

  constructor(
    @InjectModel(Job.name) private readonly jobs: Model<Job>,
    private readonly realtime: RealtimePublisher,
    private readonly modules: ModuleRef,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  private queueOf(tool: JobTool): Queue {
    return this.modules.get<Queue>(toolQueueToken(tool), { strict: false });
  }

  /**
   * Adds the Bull job (a no-op when one with this id exists) with its fair-share priority and the
   * size of its work; returns its place in line (0 when a worker has taken it already).
   */
  async enqueue(job: JobRecord): Promise<JobPlace> {
    const queue = this.queueOf(job.tool);
    const jobId = String(job._id);
    const priority = await fairShareTag(queue, String(job.owner), jobId);
    const data: LineData = { jobId, work: job.params?.work ?? 1, bucket: etaBucket(job.tool, job.params) };
    await queue.add(data, jobOptions(this.config, jobId, priority));
    try {
      const line = await this.line(job.tool, [jobId]);
      const place = placesIn(line, concurrencyOf(this.config, job.tool), Date.now()).get(jobId);
      // Put ahead of others (fair share): those behind it have moved back a place.
      if (place?.position !== undefined && place.position < line.waitingTotal) this.announce(job.tool);
      return { jobId, position: place?.position ?? 0, etaSeconds: place?.etaSeconds };
    } catch (err) {
      this.logger.warn(`place of job ${jobId} not read: ${String(err)}`);
      return { jobId, position: 0 };
    }
  }

  /** The ids waiting in a tool's queue, next in line first (at most POSITIONS_TOLD). */
  async waiting(tool: JobTool): Promise<string[]> {
    return (await this.line(tool, [])).waiting.map((job) => job.jobId);
  }

  /** A tool's line as the queue holds it now, with the jobs `ask` names wherever they are. */
  async line(tool: JobTool, ask: string[]): Promise<Line> {
    const queue = this.queueOf(tool);
    const buckets = bucketsOf(tool);
    const [total, waiting, running, others, rates] = (await queue.client.eval(
      LINE_SCRIPT,
      2 + buckets.length,
      queue.toKey('wait'),
      queue.toKey('active'),
      ...buckets.map((bucket) => queue.toKey(`eta:${bucket}`)),
      queue.toKey(''),
      POSITIONS_TOLD,
      ...ask,
    )) as LineReply;
    const sized = (jobId: string, raw: string): WaitingJob => {
      const data = parseData(raw);
      return { jobId, work: data.work ?? 1, bucket: data.bucket ?? tool };
    };
    const line: Line = { tool, waiting: [], waitingTotal: Number(total), running: [], others: [], rates: {} };
    for (let i = 0; i < waiting.length; i += 2) line.waiting.push(sized(waiting[i], waiting[i + 1]));
    for (let i = 0; i < running.length; i += 4) {
      line.running.push({
        ...sized(running[i], running[i + 1]),
        progress: Number(running[i + 2]) || 0,
        startedAt: Number(running[i + 3]) || Date.now(),
      });
    }
    for (let i = 0; i < others.length; i += 3) {
      const position = Number(others[i + 2]);
      line.others.push({
        ...sized(String(others[i]), String(others[i + 1])),
        position: position || undefined,
      });
    }
    buckets.forEach((bucket, i) => {
      const rate = median(rates[i].map(Number));
      if (rate !== undefined) line.rates[bucket] = rate;
    });
    return line;
  }

  /** Places and estimated seconds of these jobs of a tool (and of every job in its window). */
  async places(tool: JobTool, ask: string[]): Promise<Map<string, Place>> {
    return placesIn(await this.line(tool, ask), concurrencyOf(this.config, tool), Date.now());
  }

  /** Views of open jobs with their place in line and estimated seconds to finish (GET answers). */
  async withPlaces(views: JobView[]): Promise<JobView[]> {
    const open = views.filter((view) => isOpenJobState(view.state));
    if (open.length === 0) return views;
    const found = new Map<string, Place>();
    try {
      // One read per tool, all at once: each await of a loaded event loop adds its delay.
      const tools = [...new Set(open.map((view) => view.tool))];
      const read = await Promise.all(
        tools.map((tool) =>
          this.places(
            tool,
            open.filter((view) => view.tool === tool).map((view) => view._id),
          ),
        ),
      );
      for (const places of read) for (const [id, place] of places) found.set(id, place);
    } catch (err) {
      // Places are a courtesy: the jobs are answered without them.
      this.logger.warn(`places in line not read: ${String(err)}`);
    }
    return views.map((view) => {
      const place = found.get(view._id);
      if (!place) return view;
      const placed: JobView = { ...view, etaSeconds: place.etaSeconds };
      if (place.position !== undefined) placed.position = place.position;
      return placed;
    });
  }

  /**
   * A job finished with a result: its seconds per unit of work join its bucket's recent figures.
   * Failed and retried runs are not recorded (a quick refusal is not the tool's pace).
   */
  finished(tool: JobTool, bullJob: BullJob): void {
    const data = (bullJob.data ?? {}) as LineData;
    const startedAt = bullJob.processedOn;
    if (!startedAt) return;
    const seconds = (Date.now() - startedAt) / 1000;
    const rate = seconds / (data.work && data.work > 0 ? data.work : 1);
    const queue = this.queueOf(tool);
    const key = queue.toKey(`eta:${data.bucket ?? tool}`);
    queue.client
      .multi()
      .lpush(key, String(rate))
      .ltrim(key, 0, DURATIONS_KEPT - 1)
      .exec()
      .catch((err) => this.logger.warn(`duration of a ${tool} job not recorded: ${String(err)}`));
  }

  /**
   * The line of this tool changed (a job started, was cancelled, or was put ahead of others): tells
   * the owners of the jobs still waiting their new places, now or, when an announcement went out
   * less than POSITIONS_EVERY_MS ago, when that window ends.
   */
  announce(tool: JobTool): void {
    const window = this.windows.get(tool);
    if (window) {
      window.again = true;
      return;
    }
    const opened = { again: false };
    this.windows.set(tool, opened);
    void this.tell(tool);
    setTimeout(() => {
      this.windows.delete(tool);
      if (opened.again) this.announce(tool);
    }, POSITIONS_EVERY_MS).unref();
  }

  /** Pushes every owner of a waiting job of this tool the places of their own waiting jobs. */
  private async tell(tool: JobTool): Promise<void> {
    try {
      const line = await this.line(tool, []);
      const places = placesIn(line, concurrencyOf(this.config, tool), Date.now());
      const ids = line.waiting.map((job) => job.jobId).filter((id) => isValidObjectId(id));
      if (ids.length === 0) return;
      const owners = await this.jobs
        .find({ _id: { $in: ids.map((id) => new Types.ObjectId(id)) } }, { owner: 1 })
        .lean();
      const ownerOf = new Map(owners.map((job) => [String(job._id), String(job.owner)]));
      const byOwner = new Map<string, JobPlace[]>();
      for (const jobId of ids) {
        const owner = ownerOf.get(jobId);
        const place = places.get(jobId);
        if (!owner || place?.position === undefined) continue;
        const told = { jobId, position: place.position, etaSeconds: place.etaSeconds };
        byOwner.set(owner, [...(byOwner.get(owner) ?? []), told]);
      }
      for (const [owner, positions] of byOwner) {
        this.realtime.toUser(owner, JobSocketEvents.positions, { tool, positions });
      }
    } catch (err) {
      // Places in line are a courtesy: a failed read must not touch the job that started.
      this.logger.warn(`queue positions of ${tool} not pushed: ${String(err)}`);
    }
  }
}

function parseData(raw: string): Partial<LineData> {
  try {
    const data = JSON.parse(raw) as Partial<LineData>;
    return typeof data === 'object' && data !== null ? data : {};
  } catch {
    return {};
  }
}
