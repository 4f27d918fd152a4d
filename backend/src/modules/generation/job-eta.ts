import type { JobTool } from '@studio/contracts';

/**
 * Estimated times of the jobs in a tool's line. Each job carries its size of work (in its Bull
 * data): input megapixels times images, seconds of video, or one generated image. Each finished
 * job records its seconds per unit of work in a short list per bucket (a tool; super resolution per
 * factor), and the median of those recent figures prices the work of the jobs still to run.
 */

/** Recent finished jobs kept per bucket: the median of these is the estimate. */
export const DURATIONS_KEPT = 21;

/**
 * Smallest work counted for one image, megapixels: a small image costs about the same fixed time
 * (reads, writes, model start) as a slightly bigger one, and would otherwise price large ones high.
 */
export const MIN_IMAGE_MEGAPIXELS = 0.1;

/**
 * Seconds per unit of work before a bucket has any measurement (this 2-core machine's order of
 * magnitude, replaced by measurements after the first finished job).
 */
export const DEFAULT_SECONDS_PER_WORK: Record<JobTool, number> = {
  clone: 0.5,
  superResolution: 80,
  faceSwap: 20,
  inpaint: 20,
  generate: 30,
  faceSwapVideo: 10,
};

/** What the queue keeps with each job (besides the record's id) to estimate the line. */
export interface LineData {
  jobId: string;
  /** Units of work (see the module comment). */
  work?: number;
  /** The duration bucket: the tool, or `superResolution:<factor>`. */
  bucket?: string;
}

export function etaBucket(tool: JobTool, params: { scale?: number } = {}): string {
  return tool === 'superResolution' ? `${tool}:${params.scale ?? 2}` : tool;
}

/** Width x height from a PNG header (inputs are stored as normalized PNGs), in megapixels. */
export function pngMegapixels(data: Buffer): number | undefined {
  const signature = '89504e470d0a1a0a';
  if (data.length < 24 || data.subarray(0, 8).toString('hex') !== signature) return undefined;
  return (data.readUInt32BE(16) * data.readUInt32BE(20)) / 1e6;
}

const imageWork = (data: Buffer | undefined) =>
  Math.max(MIN_IMAGE_MEGAPIXELS, (data && pngMegapixels(data)) ?? 1);

/**
 * The work of a request: clones scale with the copies made of the image; super resolution runs
 * its model at the input's size; a face swap works on the target (the second input); a generated
 * image is one unit; a video is its priced seconds.
 */
export function jobWork(tool: JobTool, inputs: { data: Buffer }[], units: number): number {
  switch (tool) {
    case 'clone':
      return imageWork(inputs[0]?.data) * Math.max(1, units);
    case 'superResolution':
    case 'inpaint':
      return imageWork(inputs[0]?.data);
    case 'faceSwap':
      return imageWork(inputs[1]?.data ?? inputs[0]?.data);
    case 'generate':
      return Math.max(1, units);
    case 'faceSwapVideo':
      return Math.max(1, units);
  }
}

export function median(values: number[]): number | undefined {
  const sorted = values.filter((v) => Number.isFinite(v) && v >= 0).sort((a, b) => a - b);
  if (sorted.length === 0) return undefined;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export interface WaitingJob {
  jobId: string;
  work: number;
  bucket: string;
}
export interface RunningJob extends WaitingJob {
  /** 0..100 as the worker last reported it. */
  progress: number;
  /** When the worker took it (ms since the epoch). */
  startedAt: number;
}

/** A tool's line as the queue holds it. */
export interface Line {
  tool: JobTool;
  /** The first waiting jobs, next in line first. */
  waiting: WaitingJob[];
  /** How many wait in all (the window above may be shorter). */
  waitingTotal: number;
  running: RunningJob[];
  /** Jobs asked about that are not in the window: further back (with their position) or elsewhere. */
  others: (WaitingJob & { position?: number })[];
  /** Seconds per unit of work, per bucket, from recent measurements (when any). */
  rates: Record<string, number>;
}

export interface Place {
  /** 1 is next; absent for a job that is not waiting. */
  position?: number;
  etaSeconds: number;
}

/**
 * Every job's place and estimated seconds until it finishes: the work ahead of it (what the running
 * jobs have left, and the jobs before it in line), shared by the tool's lanes, plus its own.
 */
export function placesIn(line: Line, concurrency: number, now: number): Map<string, Place> {
  const secondsOf = (job: WaitingJob) =>
    job.work * (line.rates[job.bucket] ?? DEFAULT_SECONDS_PER_WORK[line.tool]);
  // Several worker processes may run the queue: as many lanes as jobs are seen running.
  const lanes = Math.max(1, concurrency, line.running.length);
  const places = new Map<string, Place>();
  const whole = (seconds: number) => Math.max(1, Math.ceil(seconds));

  let ahead = 0;
  for (const job of line.running) {
    const estimate = secondsOf(job);
    const elapsed = Math.max(0, (now - job.startedAt) / 1000);
    const done = job.progress / 100;
    // Once it reports progress, the job's own pace says more than the tool's figure.
    const total = done >= 0.05 ? elapsed / done : estimate;
    const left = Math.max(0, total - elapsed);
    ahead += left;
    places.set(job.jobId, { etaSeconds: whole(left) });
  }
  let lineSeconds = 0;
  line.waiting.forEach((job, index) => {
    const own = secondsOf(job);
    places.set(job.jobId, { position: index + 1, etaSeconds: whole((ahead + lineSeconds) / lanes + own) });
    lineSeconds += own;
  });
  const mean = line.waiting.length ? lineSeconds / line.waiting.length : 0;
  for (const job of line.others) {
    const own = secondsOf(job);
    if (job.position === undefined) {
      // Not waiting nor running (between attempts): it comes back at its round, near the front.
      places.set(job.jobId, { etaSeconds: whole(ahead / lanes + own) });
      continue;
    }
    const before = lineSeconds + Math.max(0, job.position - 1 - line.waiting.length) * mean;
    places.set(job.jobId, { position: job.position, etaSeconds: whole((ahead + before) / lanes + own) });
  }
  return places;
}
