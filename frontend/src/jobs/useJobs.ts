import type { JobView } from '@studio/contracts';
import { createContext, useContext } from 'react';
import type { TrayJob } from './jobsState';

export interface JobsValue {
  /** The user's jobs, newest first: active ones and the recently finished. */
  jobs: TrayJob[];
  /**
   * Adds a job the client just submitted (the HTTP answer may beat or trail its socket events).
   * `started` is toasted unless the job has ended meanwhile; its end's toast then replaces it.
   */
  track(job: JobView, started?: string): void;
  trayOpen: boolean;
  setTrayOpen(open: boolean): void;
  /** POST jobs/:id/cancel; resolves true when the server answered (the refund is toasted). */
  cancel(jobId: string): Promise<boolean>;
  /** POST jobs/batches/:batchId/cancel: the batch's open jobs. */
  cancelBatch(batchId: string): Promise<boolean>;
  /** POST jobs/:id/retry at the price the user confirmed. */
  retry(jobId: string, expectedCost: number): Promise<RetryOutcome>;
}

export type RetryOutcome =
  | { kind: 'started'; job: JobView }
  /** The job now costs this: the user is asked again. */
  | { kind: 'priceChanged'; cost: number }
  | { kind: 'refused' };

export const JobsContext = createContext<JobsValue | null>(null);

export function useJobs(): JobsValue {
  const jobs = useContext(JobsContext);
  if (!jobs) throw new Error('useJobs must be used inside <JobsProvider>');
  return jobs;
}
