import type { JobTool, JobView } from '@studio/contracts';

/** Tools whose result is an edit of one input image, and which input that is. */
const BEFORE_INPUT: Partial<
  Record<JobTool, (job: Pick<JobView, 'inputCount' | 'items'>, item: number) => number>
> = {
  superResolution: () => 0,
  // Inputs are [face, target]: the result is the target with the face put in.
  faceSwap: () => 1,
  // Inputs are [original, mask].
  inpaint: () => 0,
  // One or more originals, each with its copies in order.
  clone: (job, item) =>
    Math.min(job.inputCount - 1, Math.floor((item * job.inputCount) / Math.max(1, job.items.length))),
};

export const COMPARABLE_TOOLS = Object.keys(BEFORE_INPUT) as JobTool[];

/**
 * The address of the stored input a result was made from (GET /api/jobs/:id/inputs/:index), or
 * null when the tool has none to compare with or the inputs are no longer stored.
 */
export function beforeUrl(
  job: Pick<JobView, '_id' | 'tool' | 'inputCount' | 'items'>,
  itemIndex: number,
): string | null {
  const pick = BEFORE_INPUT[job.tool];
  if (!pick || job.inputCount <= 0) return null;
  const index = pick(job, itemIndex);
  if (index < 0 || index >= job.inputCount) return null;
  return `/api/jobs/${encodeURIComponent(job._id)}/inputs/${index}`;
}
