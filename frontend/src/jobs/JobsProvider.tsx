import {
  JobMessages,
  JobSocketEvents,
  plural,
  SAFETY_REASONS,
  TOOL_LABELS,
  type CancelJobResult,
  type JobView,
  type RetryJobRequest,
} from '@studio/contracts';
import { useCallback, useEffect, useMemo, useReducer, useRef, useState, type ReactNode } from 'react';
import { apiGet, apiPost, errorText, NO_RESPONSE, type ApiResult } from '../api/client';
import { useResync, useSocketEvent } from '../realtime/useRealtime';
import { useSession } from '../session/useSession';
import { useToast } from '../ui/toast';
import { isActive, jobsReducer, newestFirst, type JobsById } from './jobsState';
import { trayCanDock } from './trayDock';
import { JobsContext, type JobsValue, type RetryOutcome } from './useJobs';

const CONFLICT = 409;

/**
 * The user's jobs for the tray and the tool screens: loaded from GET /api/jobs once the session is
 * confirmed (and again whenever the socket (re)joins its rooms), then kept live by the job events.
 * Announces every job that finishes while the page is open with a toast.
 */
export function JobsProvider({ children }: { children: ReactNode }) {
  const { account, checking } = useSession();
  const toast = useToast();
  const [byId, dispatch] = useReducer(jobsReducer, {});
  const [trayOpen, setTrayOpen] = useState(false);
  // Mirrors byId so socket handlers can tell a new job or a first completion from a repeat.
  const known = useRef<JobsById>({});
  known.current = byId;
  const announced = useRef(new Set<string>());
  const ready = !!account && !checking;

  const load = useCallback(async () => {
    const result = await apiGet<JobView[]>('/jobs');
    if (result.ok && Array.isArray(result.body?.content)) {
      for (const job of result.body.content) if (!isActive(job)) announced.current.add(job._id);
      dispatch({ type: 'loaded', jobs: result.body.content });
    }
  }, []);

  useEffect(() => {
    dispatch({ type: 'reset' });
    setTrayOpen(false);
    announced.current.clear();
    if (ready) void load();
  }, [ready, account, load]);

  useResync(() => void load());

  const openFor = useCallback((job: Pick<JobView, '_id' | 'state'>) => {
    // Only where it can stand beside the page: it must not cover the form the job came from.
    if (!known.current[job._id] && isActive(job) && trayCanDock()) setTrayOpen(true);
  }, []);

  useSocketEvent(JobSocketEvents.queued, ({ job, position }) => {
    openFor(job);
    dispatch({ type: 'seen', job, position });
  });
  useSocketEvent(JobSocketEvents.progress, (payload) => {
    openFor({ _id: payload.jobId, state: 'running' });
    dispatch({ type: 'progress', payload });
  });
  useSocketEvent(JobSocketEvents.positions, (payload) => dispatch({ type: 'positions', payload }));
  useSocketEvent(JobSocketEvents.completed, ({ job }) => {
    dispatch({ type: 'seen', job });
    if (announced.current.has(job._id)) return;
    announced.current.add(job._id);
    if (job.held) {
      // Made, but waiting for a moderator: nothing was added to the folder yet.
      toast.info(`${TOOL_LABELS[job.tool]} held for review`, SAFETY_REASONS[job.held], toastKey(job._id));
      return;
    }
    const count = job.items.length;
    toast.success(
      `${TOOL_LABELS[job.tool]} ready`,
      count > 1 ? `${count} images were added to your folder.` : 'The result was added to your folder.',
      toastKey(job._id),
    );
  });
  useSocketEvent(JobSocketEvents.failed, (payload) => {
    dispatch({ type: 'failed', payload });
    if (announced.current.has(payload.job._id)) return;
    announced.current.add(payload.job._id);
    toast.error(payload.message, refundText(payload.refunded), toastKey(payload.job._id));
  });
  useSocketEvent(JobSocketEvents.cancelled, (payload) => {
    dispatch({ type: 'cancelled', payload });
    // The owner's own cancel is told by the tab it was made in (below), from its answer: another
    // tab on the same tool must not read it as its own job's end. Staff's cancels are told here.
    if (!payload.job.cancelledByStaff || payload.job.batch || announced.current.has(payload.job._id)) return;
    announced.current.add(payload.job._id);
    toast.info(cancelledTitle(payload.job), refundText(payload.refunded), toastKey(payload.job._id));
  });

  /** Applies a cancel's answer at once (the socket brings the same to the other tabs). */
  const cancelled = useCallback(
    (result: ApiResult<CancelJobResult | string>) => {
      const content = result.ok ? result.body?.content : undefined;
      if (!content || typeof content !== 'object') {
        if (result.status !== NO_RESPONSE) toast.error(errorText(result));
        return false;
      }
      const fresh = content.jobs.filter((job) => !announced.current.has(job._id));
      for (const job of content.jobs) {
        dispatch({ type: 'cancelled', payload: { job, refunded: job.refunded ?? 0 } });
        announced.current.add(job._id);
      }
      if (fresh.length > 0 || content.cancelled === 0) {
        toast.info(
          content.cancelled > 1
            ? `${plural(content.cancelled, 'job')} cancelled`
            : cancelledTitle(content.jobs[0]),
          refundText(content.refunded),
        );
      }
      return true;
    },
    [toast],
  );

  const cancel = useCallback(
    async (jobId: string) =>
      cancelled(await apiPost<CancelJobResult | string>(`/jobs/${encodeURIComponent(jobId)}/cancel`)),
    [cancelled],
  );
  const cancelBatch = useCallback(
    async (batchId: string) =>
      cancelled(
        await apiPost<CancelJobResult | string>(`/jobs/batches/${encodeURIComponent(batchId)}/cancel`),
      ),
    [cancelled],
  );

  const track = useCallback(
    (job: JobView, started?: string) => {
      openFor(job);
      dispatch({ type: 'seen', job });
      // Its end may have been pushed before this answer: then "in progress" is not true any more.
      const seen = known.current[job._id];
      if (started && isActive(job) && !announced.current.has(job._id) && (!seen || isActive(seen)))
        toast.success(started, undefined, toastKey(job._id));
    },
    [openFor, toast],
  );

  const retry = useCallback(
    async (jobId: string, expectedCost: number): Promise<RetryOutcome> => {
      const body: RetryJobRequest = { expectedCost };
      const result = await apiPost<JobView | string>(`/jobs/${encodeURIComponent(jobId)}/retry`, body);
      const content = result.body?.content;
      if (result.ok && content && typeof content === 'object') {
        track(content);
        toast.success(`${TOOL_LABELS[content.tool]} started again`, 'The job tray follows it.');
        return { kind: 'started', job: content };
      }
      if (result.status === CONFLICT) {
        const cost = priceIn(result.body);
        if (cost !== undefined && cost !== expectedCost) return { kind: 'priceChanged', cost };
      }
      if (result.status !== NO_RESPONSE) toast.error(errorText(result));
      return { kind: 'refused' };
    },
    [toast, track],
  );

  const jobs = useMemo(() => newestFirst(byId), [byId]);
  const value = useMemo<JobsValue>(
    () => ({ jobs, track, trayOpen, setTrayOpen, cancel, cancelBatch, retry }),
    [jobs, track, trayOpen, cancel, cancelBatch, retry],
  );
  return <JobsContext.Provider value={value}>{children}</JobsContext.Provider>;
}

/** One toast per job: its start, then its end in the same place. */
const toastKey = (jobId: string) => `job:${jobId}`;

export function refundText(refunded: number | undefined): string | undefined {
  if (!refunded) return undefined;
  return `${plural(refunded, 'credit')} ${refunded === 1 ? 'was' : 'were'} refunded.`;
}

function cancelledTitle(job: JobView | undefined): string {
  if (!job) return 'Nothing left to cancel';
  return job.cancelledByStaff
    ? `${TOOL_LABELS[job.tool]} was cancelled by our support team`
    : `${TOOL_LABELS[job.tool]} cancelled`;
}

/**
 * The current price a 409 of POST jobs/:id/retry names: a `cost` figure beside the message (or in
 * its content), else the number in the message ("... confirm the new price: 8 credits").
 */
export function priceIn(body: unknown): number | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const { cost, content } = body as { cost?: unknown; content?: unknown };
  if (typeof cost === 'number') return cost;
  if (content && typeof content === 'object') return priceIn(content);
  if (typeof content !== 'string' || !content.startsWith(JobMessages.priceChanged)) return undefined;
  const found = /(\d[\d,]*)/.exec(content.slice(JobMessages.priceChanged.length));
  return found ? Number(found[1].replace(/,/g, '')) : undefined;
}
