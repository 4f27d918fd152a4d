import { randomUUID } from 'node:crypto';
import { A1111Client, isRecord } from './a1111-client';
import { A1111Error } from './a1111-error';
import { sleep } from './remote-http';

/**
 * One txt2img/img2img request followed by its own task id, so that this adapter can tell its
 * request apart from other clients' on a shared Automatic1111 server. Facts it rests on
 * (AUTOMATIC1111/stable-diffusion-webui, modules/api/api.py and modules/progress.py, 1.6+):
 * - txt2img/img2img take `force_task_id`; the id is queued (add_task_to_queue) before the
 *   request waits for `queue_lock`, made current (start_task) once it holds it, and finished
 *   (finish_task) after; servers before 1.6 ignore the field (pydantic drops unknown fields).
 * - POST /internal/progress {id_task} answers {active, queued, completed, progress}: `active`
 *   only while that task is the one running.
 * - POST /sdapi/v1/interrupt is global (shared.state.interrupt()): it stops whatever runs, and
 *   the stopped sampler's half-denoised latent is decoded and answered with HTTP 200.
 *   state.interrupted stays set until the next request begins (State.begin clears it).
 * - GET /sdapi/v1/progress's `current_task` is always null: api.py imports it by value.
 */
export interface TaskState {
  active: boolean;
  queued: boolean;
  completed: boolean;
  progress?: number;
}

/** An id in A1111's own format (modules/progress.py create_task_id: `task(…)`). */
export function newTaskId(): string {
  return `task(studio-${randomUUID()})`;
}

/** POST /internal/progress for one task; undefined when the server does not answer it usefully. */
export async function taskState(
  client: A1111Client,
  id: string,
  opts: { signal?: AbortSignal; timeoutMs: number },
): Promise<TaskState | undefined> {
  const answer = await client.request(
    'POST',
    '/internal/progress',
    { id_task: id, id_live_preview: -1, live_preview: false },
    opts,
  );
  if (!isRecord(answer) || typeof answer.active !== 'boolean') return undefined;
  return {
    active: answer.active,
    queued: answer.queued === true,
    completed: answer.completed === true,
    progress: typeof answer.progress === 'number' ? answer.progress : undefined,
  };
}

/** Whether GET /sdapi/v1/progress shows an interrupt since the last request began. */
export async function interruptedSinceBegin(
  client: A1111Client,
  opts: { signal?: AbortSignal; timeoutMs: number },
): Promise<{ interrupted: boolean; idle: boolean }> {
  const answer = await client.request('GET', '/sdapi/v1/progress?skip_current_image=true', undefined, opts);
  const state = isRecord(answer) && isRecord(answer.state) ? answer.state : {};
  return { interrupted: state.interrupted === true, idle: !state.job && !Number(state.job_count) };
}

export interface TaskWatchOptions {
  client: A1111Client;
  taskId: string;
  path: string;
  intervalMs: number;
  /** Longest run once the server works on the request. */
  runTimeoutMs: number;
  /** Longest wait behind other clients' requests. */
  queueTimeoutMs: number;
  onProgress?: (fraction: number) => void;
  /** Called once when a deadline passes: the caller aborts its request. */
  onTimeout: (error: A1111Error) => void;
}

/**
 * Polls the task while its request is in flight: reports its own progress (not another
 * client's), counts the run time from when the server starts it (waiting behind other clients
 * does not eat into it), and notes an interrupt seen while it ran (someone's global interrupt).
 */
export class TaskWatch {
  /** An interrupt was seen while this task was the one running. */
  sawInterrupt = false;
  private readonly stopper = new AbortController();
  private readonly started = Date.now();
  private activeSince?: number;
  private queued = false;
  private best = 0;

  constructor(private readonly options: TaskWatchOptions) {
    void this.loop();
  }

  stop(): void {
    this.stopper.abort();
  }

  private async loop(): Promise<void> {
    const { client, taskId, intervalMs, onProgress } = this.options;
    const signal = this.stopper.signal;
    const timeoutMs = Math.max(2000, intervalMs * 4);
    while (!signal.aborted) {
      try {
        await sleep(intervalMs, signal);
        const state = await taskState(client, taskId, { signal, timeoutMs }).catch(() => undefined);
        if (state?.active) {
          this.activeSince ??= Date.now();
          const fraction = Math.min(0.99, Math.max(0, state.progress ?? 0));
          if (fraction > this.best) {
            this.best = fraction;
            onProgress?.(fraction);
          }
          // Asked after /internal/progress said this task runs: a set flag is this run's (the
          // next request's begin would have cleared it).
          const global = await interruptedSinceBegin(client, { signal, timeoutMs }).catch(() => undefined);
          if (global?.interrupted) this.sawInterrupt = true;
        } else if (state?.queued) {
          this.queued = true;
        }
        const error = this.overdue();
        if (error) {
          this.options.onTimeout(error);
          return;
        }
      } catch {
        // stopped
      }
    }
  }

  /** The deadline that has passed, if any. */
  private overdue(): A1111Error | undefined {
    const { path, runTimeoutMs, queueTimeoutMs } = this.options;
    const now = Date.now();
    if (this.activeSince !== undefined) {
      if (now - this.activeSince <= runTimeoutMs) return undefined;
      return new A1111Error('timeout', `A1111 POST ${path} ran longer than ${runTimeoutMs} ms`);
    }
    if (this.queued) {
      if (now - this.started <= queueTimeoutMs) return undefined;
      return new A1111Error(
        'timeout',
        `A1111 POST ${path} waited more than ${queueTimeoutMs} ms behind other requests on the server`,
      );
    }
    // A server that does not track the id (before 1.6): the time since sending, as before.
    if (now - this.started <= runTimeoutMs) return undefined;
    return new A1111Error('timeout', `A1111 POST ${path} timed out after ${runTimeoutMs} ms`);
  }
}

/**
 * Stops an abandoned request if, and only if, it is this task that runs: interrupted when
 * /internal/progress shows it active (or once it becomes active, if it still waits for the
 * lock); left alone when done, when the server does not know the id, or when it is in its last
 * stretch (progress ≥ 0.9), where it could end, and the next client's request begin, between the
 * check and the interrupt. Resolves with what was done, for the log.
 */
export async function stopTask(
  client: A1111Client,
  taskId: string,
  opts: { intervalMs: number; giveUpMs: number },
): Promise<string> {
  const until = Date.now() + opts.giveUpMs;
  const timeoutMs = 10_000;
  let unknown = 0;
  while (Date.now() < until) {
    const state = await taskState(client, taskId, { timeoutMs }).catch(() => undefined);
    if (state?.completed) return 'it had finished';
    if (state?.active) {
      if ((state.progress ?? 0) >= 0.9) return 'left to finish (in its last stretch)';
      await client.request('POST', '/sdapi/v1/interrupt', {}, { timeoutMs });
      return 'interrupted (it was the request running)';
    }
    if (state?.queued) unknown = 0;
    else if (++unknown >= 3)
      return 'left alone: the server does not report this task (force_task_id unsupported?)';
    await sleep(opts.intervalMs);
  }
  return 'left alone: still waiting on the server when the watch ended';
}
