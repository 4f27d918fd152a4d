import { JobMessages, type JobView } from '@studio/contracts';
import { apiGet, errorText } from '../api/client';

/** One job as a panel that reads it on demand shows it: the job, or what to say instead. */
export type JobRead = { status: 'ready'; job: JobView } | { status: 'failed'; text: string };

/** GET /api/jobs/{id}, for the panels that read a job when first opened (Compare, Job details). */
export async function readJob(jobId: string): Promise<JobRead> {
  const result = await apiGet<JobView>(`/jobs/${encodeURIComponent(jobId)}`);
  return result.ok && result.body
    ? { status: 'ready', job: result.body.content }
    : { status: 'failed', text: result.status === 404 ? JobMessages.notFound : errorText(result) };
}
