import { BullModule, getQueueToken } from '@nestjs/bull';
import { Module } from '@nestjs/common';
import { JobTools, type JobTool } from '@studio/contracts';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { QUEUE_RETRY_PROCESS_MS } from '../../infrastructure/outage';

/** One Bull queue per tool, so each can have its own concurrency and its own workers. */
export const toolQueueName = (tool: JobTool) => `tool-${tool}`;
export const toolQueueToken = (tool: JobTool) => getQueueToken(toolQueueName(tool));

/** How long Bull keeps finished jobs (for the queue board and duplicate detection). */
const KEEP_FINISHED = { age: 24 * 3600, count: 1000 };

/**
 * `priority` is the job's fair-share round (fair-share.ts): Bull serves lower numbers first and
 * equal ones in arrival order, and keeps it across retries.
 */
export const jobOptions = (config: AppConfig, jobId: string, priority?: number) => ({
  jobId,
  priority,
  attempts: config.JOB_ATTEMPTS,
  backoff: { type: 'exponential', delay: config.JOB_BACKOFF_MS },
  removeOnComplete: KEEP_FINISHED,
  removeOnFail: KEEP_FINISHED,
});

/** Registers the tool queues; imported by the API (to add jobs) and the worker (to run them). */
@Module({
  imports: [
    BullModule.registerQueueAsync(
      ...JobTools.map((tool) => ({
        name: toolQueueName(tool),
        inject: [APP_CONFIG],
        useFactory: (config: AppConfig) => ({
          settings: {
            // A worker that dies stops renewing its lock; after this long another worker takes over.
            lockDuration: config.JOB_LOCK_MS,
            stalledInterval: Math.max(1000, Math.floor(config.JOB_LOCK_MS / 2)),
            maxStalledCount: 2,
            // The root's (queue.module.ts): these settings replace its settings whole.
            retryProcessDelay: QUEUE_RETRY_PROCESS_MS,
          },
        }),
      })),
    ),
  ],
  exports: [BullModule],
})
export class JobQueuesModule {}

/** Whether this process works on a tool's queue (WORKER_QUEUES). */
export function runsQueue(config: AppConfig, tool: JobTool): boolean {
  if (config.WORKER_QUEUES === 'all') return true;
  if (config.WORKER_QUEUES === 'none') return false;
  return config.WORKER_QUEUES.split(',').includes(tool);
}

/** The engine kind that runs a tool's jobs (ENGINE_<TOOL>): 'local' is this process's engine pool. */
export function engineKindOf(config: AppConfig, tool: JobTool): string {
  switch (tool) {
    case 'clone':
      return config.ENGINE_CLONE;
    case 'superResolution':
      return config.ENGINE_SUPER_RESOLUTION;
    case 'faceSwap':
      return config.ENGINE_FACE_SWAP;
    case 'faceSwapVideo':
      return 'local'; // frame by frame with ffmpeg; the A1111 API has no video endpoint
    case 'inpaint':
      return config.ENGINE_INPAINT;
    case 'generate':
      return config.ENGINE_GENERATE;
  }
}

/**
 * Jobs of a tool one worker process runs at once (its Bull processor's concurrency, and the lanes
 * of the ETA): JOB_CONCURRENCY_<TOOL>, and for a tool on the local engine no more than the pool has
 * threads. Bull moves a job to active as soon as a processor slot is free, and from then on fair
 * share cannot put another user's job before it: a slot beyond the pool's threads would take a job
 * the pool cannot start, and a newcomer would wait for it too (issue 54: behind two of a backlog's
 * jobs instead of one). So a job is taken only when a thread can start it, and the next is chosen
 * by fair share when a running one ends (Bull fetches it as it completes the last).
 */
export function concurrencyOf(config: AppConfig, tool: JobTool): number {
  const configured = configuredConcurrency(config, tool);
  const poolThreads = config.ENGINE_POOL_SIZE;
  if (engineKindOf(config, tool) !== 'local' || !poolThreads) return configured;
  return Math.min(configured, poolThreads);
}

function configuredConcurrency(config: AppConfig, tool: JobTool): number {
  switch (tool) {
    case 'clone':
      return config.JOB_CONCURRENCY_CLONE;
    case 'superResolution':
      return config.JOB_CONCURRENCY_SUPER_RESOLUTION;
    case 'faceSwap':
      return config.JOB_CONCURRENCY_FACE_SWAP;
    case 'inpaint':
      return config.JOB_CONCURRENCY_INPAINT;
    case 'generate':
      return config.JOB_CONCURRENCY_GENERATE;
    case 'faceSwapVideo':
      return config.JOB_CONCURRENCY_FACE_SWAP_VIDEO;
  }
}
