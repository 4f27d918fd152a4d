import type { JobTool, JobView } from '@studio/contracts';
import { Paths } from '../paths';

/** The screen each tool's jobs come from, where "Edit and run" opens them. */
export const TOOL_PATHS: Record<JobTool, string> = {
  clone: Paths.home,
  superResolution: Paths.superResolution,
  faceSwap: Paths.swap,
  inpaint: Paths.magic,
  generate: Paths.generate,
  faceSwapVideo: Paths.swapVideo,
};

/** The query parameter that names the job a tool screen is pre-filled from. */
export const FROM_JOB_PARAM = 'from';

/** The tool's screen pre-filled from the job ("Edit and run"). */
export const editPath = (job: Pick<JobView, '_id' | 'tool'>) =>
  `${TOOL_PATHS[job.tool]}?${FROM_JOB_PARAM}=${encodeURIComponent(job._id)}`;

/** Generate needs no stored inputs (its tags are settings); every other tool needs its files. */
export const inputsKept = (job: Pick<JobView, 'tool' | 'inputCount'>) =>
  job.tool === 'generate' || job.inputCount > 0;
