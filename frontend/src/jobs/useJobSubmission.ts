import { JOB_REF_HEADER, type JobEndedRefusal, type JobSubmitContent, type JobView } from '@studio/contracts';
import { useRef, useState } from 'react';
import { errorText, NO_RESPONSE, type ApiResult } from '../api/client';
import { useToast } from '../ui/toast';
import type { TrayJob } from './jobsState';
import { useJobs } from './useJobs';

/** The status of a job that failed while the request waited for it. */
const UNPROCESSABLE = 422;

/** The spec's generation modal states: Generating..., then 'success' or 'processing'. */
export type SubmissionState =
  | { phase: 'idle' }
  | { phase: 'generating' }
  | { phase: 'success'; job: JobView; url?: string }
  | { phase: 'processing'; job: JobView };

export interface JobSubmission {
  state: SubmissionState;
  /** The job this submission follows, live from the socket; found before the answer arrives. */
  job: TrayJob | undefined;
  /** 0..100 for the progress bar. */
  progress: number;
  busy: boolean;
  /**
   * Sends the request with the submission's headers (its mark, JOB_REF_HEADER); resolves true when
   * the server accepted the job.
   */
  submit(
    send: (headers: Record<string, string>) => Promise<ApiResult<JobSubmitContent | string>>,
  ): Promise<boolean>;
  /** Back to idle; an answer still on its way is then ignored (the tray reports it). */
  reset(): void;
}

/** A fresh mark for one submission (getRandomValues works on plain http too, randomUUID does not). */
function newJobRef(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** The job of a tool request's 422 when it was cancelled while the request waited (JobEndedRefusal). */
function cancelledJobOf(result: ApiResult<unknown>): JobView | undefined {
  if (result.status !== UNPROCESSABLE) return undefined;
  const job = (result.body as Partial<JobEndedRefusal> | null)?.job;
  return job?.state === 'cancelled' ? job : undefined;
}

/**
 * Runs one tool request for a screen. While the request waits (up to ~20 s) the server already
 * pushes the job's events: the job is recognised by the mark this submission sent with it (the
 * job's `ref`), so another tab's job of the same tool is never taken for this one; once the answer
 * arrives its job id is used.
 */
export function useJobSubmission(): JobSubmission {
  const { jobs, track } = useJobs();
  const toast = useToast();
  const [state, setState] = useState<SubmissionState>({ phase: 'idle' });
  const ref = useRef<string | null>(null);
  const run = useRef(0);
  const latestJobs = useRef(jobs);
  latestJobs.current = jobs;
  const followed = (list: TrayJob[]) => list.find((known) => !!ref.current && known.ref === ref.current);

  const submit: JobSubmission['submit'] = async (send) => {
    const current = ++run.current;
    ref.current = newJobRef();
    setState({ phase: 'generating' });
    const result = await send({ [JOB_REF_HEADER]: ref.current });
    const content = result.ok ? result.body?.content : undefined;
    const accepted = content && typeof content === 'object' ? content : null;
    // Cancelled while the request waited: the refusal brings the job, which a busy server may send
    // before the cancel's own answer and socket event.
    const cancelled = cancelledJobOf(result);
    // The tray follows the job even when the modal was closed meanwhile.
    if (accepted) track(accepted.job);
    else if (cancelled) track(cancelled);
    if (current !== run.current) return !!accepted;
    if (accepted) {
      setState(
        result.body?.message === 'success'
          ? { phase: 'success', job: accepted.job, url: accepted.url }
          : { phase: 'processing', job: accepted.job },
      );
      return true;
    }
    // Cancelled while the request waited: the modal keeps showing the job (cancelled, refunded).
    const mine = cancelled ?? followed(latestJobs.current);
    if (mine?.state === 'cancelled') {
      setState({ phase: 'processing', job: mine });
      return true;
    }
    setState({ phase: 'idle' });
    // Network failures are only logged (spec section 8); the server's refusals are shown, except a
    // job failure the tray has already announced from its socket event.
    const announced = result.status === UNPROCESSABLE && mine?.state === 'failed';
    if (result.status !== NO_RESPONSE && !announced) toast.error(errorText(result));
    return false;
  };

  const reset = () => {
    run.current += 1;
    setState({ phase: 'idle' });
  };

  let job: TrayJob | undefined;
  if (state.phase === 'success' || state.phase === 'processing') {
    job = jobs.find((known) => known._id === state.job._id) ?? state.job;
  } else if (state.phase === 'generating') {
    job = followed(jobs);
  }
  const progress = state.phase === 'success' ? 100 : Math.round(job?.progress ?? 0);

  return { state, job, progress, busy: state.phase === 'generating', submit, reset };
}
