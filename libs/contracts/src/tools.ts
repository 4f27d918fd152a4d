/**
 * The tools that exist, by name (prices: TOOL_PRICES in pricing.ts). A file of its own that imports
 * nothing, so the rules about tools (age-assurance.ts) and the job pipeline (jobs.ts) can both
 * use it without importing each other.
 */
export const JobTools = [
  'clone',
  'superResolution',
  'faceSwap',
  'inpaint',
  'generate',
  'faceSwapVideo',
] as const;
export type JobTool = (typeof JobTools)[number];
