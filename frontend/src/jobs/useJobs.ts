import type { JobView } from '@studio/contracts';
import { createContext, useContext } from 'react';
import type { TrayJob } from './jobsState';

export interface JobsValue {
  /** The user's jobs, newest first: active ones and the recently finished. */
  jobs: TrayJob[];
  /** Adds a job the client just submitted (the HTTP answer may beat or trail its socket events). */
  track(job: JobView): void;
  trayOpen: boolean;
  setTrayOpen(open: boolean): void;
}

export const JobsContext = createContext<JobsValue | null>(null);

export function useJobs(): JobsValue {
  const jobs = useContext(JobsContext);
  if (!jobs) throw new Error('useJobs must be used inside <JobsProvider>');
  return jobs;
}
