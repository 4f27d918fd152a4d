import type { JobSettings, JobView } from '@studio/contracts';
import type { JobParams, JobRecord } from './job.schema';

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
    settings: settingsOf(job.params ?? {}),
    inputCount: job.inputs?.length ?? 0,
  };
  if (job.finishedAt) view.finishedAt = new Date(job.finishedAt).toISOString();
  if (job.error) view.error = job.error;
  if (job.refunded !== undefined) view.refunded = job.refunded;
  if (job.params?.batchId) {
    view.batch = { id: job.params.batchId, name: job.params.batchName ?? '' };
    if (job.params.batchSize) view.batch.size = job.params.batchSize;
  }
  if (job.state === 'cancelled' && job.cancel?.staff) view.cancelledByStaff = true;
  if (job.ref) view.ref = job.ref;
  if (job.safety?.verdict === 'hold' && job.safety.reason && !job.safety.decided)
    view.held = job.safety.reason;
  return view;
}

/** The settings "Run again" repeats and "Edit and run" pre-fills (only what the owner asked with). */
function settingsOf(params: JobParams): JobSettings {
  const settings: JobSettings = {};
  if (params.amount !== undefined) settings.amount = params.amount;
  if (params.prompt !== undefined) settings.prompt = params.prompt;
  if (params.tags) settings.tags = { ...params.tags };
  if (params.scale !== undefined) settings.scale = params.scale;
  return settings;
}
