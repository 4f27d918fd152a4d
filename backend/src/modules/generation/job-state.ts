import type { Model, Types } from 'mongoose';
import type { JobState } from '@studio/contracts';
import type { Job } from './job.schema';

/**
 * The job state machine, in one place. A job is `queued` when recorded, `running` while a worker
 * has it (again `running` when a rerun takes it over), and ends `succeeded`, `failed` or
 * `cancelled` (its owner or staff stopped it while it was open); a final state never changes. Every move is one conditional update on the job's current state, so of two
 * parties ending one job (its worker, the sweep, a rerun) only the first one's update lands.
 *
 * Which final state a job gets is not the caller's wish but what the ledger did: `succeeded` only
 * once its reservation was captured, `failed` or `cancelled` only once it was refunded (with the
 * credits the refund actually gave back). JobLifecycle settles the money first, then moves the job.
 */
export const JOB_TRANSITIONS: Readonly<Record<JobState, readonly JobState[]>> = {
  queued: ['running', 'succeeded', 'failed', 'cancelled'],
  running: ['running', 'succeeded', 'failed', 'cancelled'],
  succeeded: [],
  failed: [],
  cancelled: [],
};

export const isFinal = (state: JobState) => JOB_TRANSITIONS[state].length === 0;

/** The states a job may be in for a move to `to`. */
export const statesBefore = (to: JobState): JobState[] =>
  (Object.keys(JOB_TRANSITIONS) as JobState[]).filter((from) => JOB_TRANSITIONS[from].includes(to));

/**
 * Moves a job to `to` if its current state allows it, setting `fields` (and `$inc`) in the same
 * atomic update. Returns the job after the move, or null when it was in no state to move.
 */
export async function transition(
  jobs: Model<Job>,
  jobId: Types.ObjectId,
  to: JobState,
  fields: Partial<Job> = {},
  inc?: Partial<Record<keyof Job, number>>,
): Promise<Job | null> {
  return jobs
    .findOneAndUpdate(
      { _id: jobId, state: { $in: statesBefore(to) } },
      { $set: { ...fields, state: to }, ...(inc ? { $inc: inc } : {}) },
      { new: true },
    )
    .lean<Job>();
}
