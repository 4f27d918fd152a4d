import type { JobSocketPayloads, JobState, JobView } from '@studio/contracts';

/** A job as the tray knows it: the server's view plus what only the socket tells. */
export interface TrayJob extends JobView {
  /** Place in the queue, from job.queued. */
  position?: number;
}

export type JobsById = Record<string, TrayJob>;

export type JobsAction =
  | { type: 'reset' }
  | { type: 'loaded'; jobs: JobView[] }
  | { type: 'seen'; job: JobView; position?: number }
  | { type: 'progress'; payload: JobSocketPayloads['job.progress'] }
  | { type: 'failed'; payload: JobSocketPayloads['job.failed'] };

const RANK: Record<JobState, number> = { queued: 0, running: 1, succeeded: 2, failed: 2 };

export const isActive = (job: Pick<JobView, 'state'>) => RANK[job.state] < 2;

/**
 * Keeps whichever view of a job is further along: socket events and HTTP answers arrive in any
 * order, and a late 'queued' or progress event must never undo a finished job.
 */
function merge(known: TrayJob | undefined, next: TrayJob): TrayJob {
  if (!known) return next;
  const ahead = RANK[next.state] - RANK[known.state];
  if (ahead < 0) return known;
  if (ahead === 0 && next.state !== 'succeeded' && next.state !== 'failed') {
    return {
      ...known,
      ...next,
      progress: Math.max(known.progress, next.progress),
      position: next.position ?? known.position,
    };
  }
  return { ...known, ...next, position: ahead > 0 ? undefined : (next.position ?? known.position) };
}

export function jobsReducer(state: JobsById, action: JobsAction): JobsById {
  switch (action.type) {
    case 'reset':
      return {};
    case 'loaded':
      return action.jobs.reduce((all, job) => ({ ...all, [job._id]: merge(all[job._id], job) }), state);
    case 'seen':
      return {
        ...state,
        [action.job._id]: merge(state[action.job._id], { ...action.job, position: action.position }),
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
      };
      if (!isActive(known)) return state;
      return {
        ...state,
        [jobId]: { ...known, state: 'running', progress: Math.max(known.progress, progress) },
      };
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
  }
}

/** Newest first, as the tray and GET /api/jobs list them. */
export function newestFirst(jobs: JobsById): TrayJob[] {
  return Object.values(jobs).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}
