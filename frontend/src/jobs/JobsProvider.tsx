import { JobSocketEvents, plural, SocketEvents, TOOL_LABELS, type JobView } from '@studio/contracts';
import { useCallback, useEffect, useMemo, useReducer, useRef, useState, type ReactNode } from 'react';
import { apiGet } from '../api/client';
import { useSocketEvent } from '../realtime/useRealtime';
import { useSession } from '../session/useSession';
import { useToast } from '../ui/toast';
import { isActive, jobsReducer, newestFirst, type JobsById } from './jobsState';
import { trayCanDock } from './trayDock';
import { JobsContext, type JobsValue } from './useJobs';

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

  useSocketEvent(SocketEvents.ready, () => void load());

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
    const count = job.items.length;
    toast.success(
      `${TOOL_LABELS[job.tool]} ready`,
      count > 1 ? `${count} images were added to your folder.` : 'The result was added to your folder.',
    );
  });
  useSocketEvent(JobSocketEvents.failed, (payload) => {
    dispatch({ type: 'failed', payload });
    if (announced.current.has(payload.job._id)) return;
    announced.current.add(payload.job._id);
    toast.error(payload.message, refundText(payload.refunded));
  });

  const track = useCallback(
    (job: JobView) => {
      openFor(job);
      dispatch({ type: 'seen', job });
    },
    [openFor],
  );

  const jobs = useMemo(() => newestFirst(byId), [byId]);
  const value = useMemo<JobsValue>(() => ({ jobs, track, trayOpen, setTrayOpen }), [jobs, track, trayOpen]);
  return <JobsContext.Provider value={value}>{children}</JobsContext.Provider>;
}

export function refundText(refunded: number | undefined): string | undefined {
  if (!refunded) return undefined;
  return `${plural(refunded, 'credit')} ${refunded === 1 ? 'was' : 'were'} refunded.`;
}
