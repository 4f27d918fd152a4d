import { isOpenJobState, type JobSocketPayloads, type JobState, type JobView } from '@studio/contracts';

/** A job as the tray knows it: the server's view plus what only the socket tells. */
export interface TrayJob extends JobView {
  /** Place in line while waiting (1 is next), from job.queued and job.positions. */
  position?: number;
  /**
   * When the job should finish (epoch ms), from the last etaSeconds heard: kept as a time rather
   * than a count of seconds so the screens count down between the server's pushes.
   */
  etaAt?: number;
}

export type JobsById = Record<string, TrayJob>;

export type JobsAction =
  | { type: 'reset' }
  | { type: 'loaded'; jobs: JobView[] }
  | { type: 'seen'; job: JobView; position?: number }
  | { type: 'progress'; payload: JobSocketPayloads['job.progress'] }
  | { type: 'positions'; payload: JobSocketPayloads['job.positions'] }
  | { type: 'failed'; payload: JobSocketPayloads['job.failed'] }
  | { type: 'cancelled'; payload: JobSocketPayloads['job.cancelled'] };

const RANK: Record<JobState, number> = { queued: 0, running: 1, succeeded: 2, failed: 2, cancelled: 2 };

/** Waiting or running: it may still be cancelled, and shows its place in line or its progress. */
export const isActive = (job: Pick<JobView, 'state'>) => isOpenJobState(job.state);

/** The job as received now: its etaSeconds turned into a time to count down to. */
export function withEta<T extends JobView>(job: T, now = Date.now()): T & { etaAt?: number } {
  return job.etaSeconds === undefined ? job : { ...job, etaAt: now + job.etaSeconds * 1000 };
}

/**
 * Keeps whichever view of a job is further along: socket events and HTTP answers arrive in any
 * order, and a late 'queued' or progress event must never undo a finished job.
 */
function merge(known: TrayJob | undefined, next: TrayJob): TrayJob {
  if (!known) return next;
  const ahead = RANK[next.state] - RANK[known.state];
  if (ahead < 0) return known;
  // An ended job stays as it first ended (a cancel racing a finish ends in one of the two).
  if (ahead === 0 && !isActive(next) && next.state !== known.state) return known;
  if (ahead === 0 && isActive(next)) {
    return {
      ...known,
      ...next,
      progress: Math.max(known.progress, next.progress),
      position: next.position ?? known.position,
      etaAt: next.etaAt ?? known.etaAt,
    };
  }
  // Started: no longer in line, but the estimate of when it finishes still holds.
  if (ahead > 0 && isActive(next)) {
    return { ...known, ...next, position: undefined, etaAt: next.etaAt ?? known.etaAt };
  }
  // The ended job's latest view decides whether it is still held (a moderator released it since).
  return { ...known, ...next, held: next.held, position: undefined, etaAt: undefined };
}

export function jobsReducer(state: JobsById, action: JobsAction): JobsById {
  switch (action.type) {
    case 'reset':
      return {};
    case 'loaded':
      return action.jobs.reduce(
        (all, job) => ({ ...all, [job._id]: merge(all[job._id], withEta(job)) }),
        state,
      );
    case 'seen':
      return {
        ...state,
        [action.job._id]: merge(state[action.job._id], {
          ...withEta(action.job),
          position: action.position ?? action.job.position,
        }),
      };
    case 'progress': {
      const { jobId, tool, progress } = action.payload;
      // Progress of a job not seen yet (its 'queued' event was missed): a stub until it finishes.
      const known: TrayJob = state[jobId] ?? {
        _id: jobId,
        tool,
        state: 'running',
        progress: 0,
        cost: 0,
        folderId: '',
        createdAt: new Date().toISOString(),
        items: [],
        settings: {},
        inputCount: 0,
      };
      if (!isActive(known)) return state;
      return {
        ...state,
        [jobId]: { ...known, state: 'running', progress: Math.max(known.progress, progress) },
      };
    }
    case 'positions': {
      let next = state;
      const now = Date.now();
      for (const { jobId, position, etaSeconds } of action.payload.positions) {
        const known = next[jobId];
        if (known?.state !== 'queued') continue;
        const etaAt = etaSeconds === undefined ? known.etaAt : now + etaSeconds * 1000;
        if (known.position === position && known.etaAt === etaAt) continue;
        next = { ...next, [jobId]: { ...known, position, etaAt } };
      }
      return next;
    }
    case 'failed': {
      const { job, message, refunded } = action.payload;
      return {
        ...state,
        [job._id]: merge(state[job._id], {
          ...job,
          state: 'failed',
          error: job.error ?? message,
          refunded: job.refunded ?? refunded,
        }),
      };
    }
    case 'cancelled': {
      const { job, refunded } = action.payload;
      return {
        ...state,
        [job._id]: merge(state[job._id], { ...job, state: 'cancelled', refunded: job.refunded ?? refunded }),
      };
    }
  }
}

/** Newest first, as the tray and GET /api/jobs list them. */
export function newestFirst(jobs: JobsById): TrayJob[] {
  return Object.values(jobs).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

/** A row of the tray: one job, or the jobs of one bulk batch together. */
export type TrayRow =
  | { kind: 'job'; key: string; job: TrayJob }
  | { kind: 'batch'; key: string; batchId: string; name: string; jobs: TrayJob[] };

/** Groups a batch's jobs into one row where its newest job stands; other jobs stay as they are. */
export function trayRows(jobs: TrayJob[]): TrayRow[] {
  const rows: TrayRow[] = [];
  const batches = new Map<string, Extract<TrayRow, { kind: 'batch' }>>();
  for (const job of jobs) {
    if (!job.batch) {
      rows.push({ kind: 'job', key: job._id, job });
      continue;
    }
    const known = batches.get(job.batch.id);
    if (known) {
      known.jobs.push(job);
      continue;
    }
    const row = {
      kind: 'batch' as const,
      key: `batch:${job.batch.id}`,
      batchId: job.batch.id,
      name: job.batch.name,
      jobs: [job],
    };
    batches.set(job.batch.id, row);
    rows.push(row);
  }
  return rows;
}

/**
 * How far a batch is: jobs ended (in any way), done (made their images), failed, cancelled, and
 * its progress (ended jobs count whole). "Done" is only what succeeded: a cancelled job is not done.
 * The total is the batch's size: its jobs' events arrive one by one, and a job not heard of yet is
 * waiting, not missing (a batch without a recorded size counts the jobs known).
 */
export function batchProgress(jobs: TrayJob[]) {
  const ended = jobs.filter((job) => !isActive(job)).length;
  const done = jobs.filter((job) => job.state === 'succeeded').length;
  const failed = jobs.filter((job) => job.state === 'failed').length;
  const cancelled = jobs.filter((job) => job.state === 'cancelled').length;
  const sum = jobs.reduce((total, job) => total + (isActive(job) ? job.progress : 100), 0);
  const total = Math.max(jobs.length, ...jobs.map((job) => job.batch?.size ?? 0));
  return {
    ended,
    done,
    failed,
    cancelled,
    total,
    percent: Math.floor(sum / Math.max(1, total)),
  };
}
