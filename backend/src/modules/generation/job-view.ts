import type { JobView } from '@studio/contracts';
import type { JobRecord } from './job.schema';

/** What the owner sees of a job record. */
export function toJobView(job: JobRecord): JobView {
  const view: JobView = {
    _id: String(job._id),
    tool: job.tool,
    state: job.state,
    progress: job.progress,
    cost: job.cost,
    folderId: String(job.folder),
    createdAt: new Date(job.createdAt).toISOString(),
    items: job.outputs ?? [],
  };
  if (job.finishedAt) view.finishedAt = new Date(job.finishedAt).toISOString();
  if (job.error) view.error = job.error;
  if (job.refunded !== undefined) view.refunded = job.refunded;
  if (job.params?.batchId) view.batch = { id: job.params.batchId, name: job.params.batchName ?? '' };
  return view;
}
