/**
 * The generation module's face: tool requests become jobs (GenerationService), the worker runs
 * them (JobRunner) and ends them once (JobLifecycle), and the job schema.
 *
 * High in the tree: it uses billing (credits), folders (outputs), operations (flags and notices
 * before a job is accepted), engines, provenance, storage and realtime. The engines it runs on
 * live below it in the engines module, so operations can show and switch them without importing
 * generation back. Only account-data, restore and metrics sit above it.
 */
export { GenerationModule } from './generation.module';
export type { JobInput } from './generation.service';
export { GenerationService } from './generation.service';
export { JobLifecycle } from './job-lifecycle.service';
export { JobRunner } from './job-runner';
export type { JobRecord } from './job.schema';
export { Job, JobSchema } from './job.schema';
