import type { MessagePort } from 'node:worker_threads';
import type { EngineModel, LocalCpuEngineOptions } from '../local-engine';

/** What the calling thread and a pool thread exchange (engine-pool.ts <-> pool-worker.ts). */

/** The engine methods a pool thread runs. */
export const POOL_METHODS = [
  'clone',
  'superResolve',
  'faceSwap',
  'inpaint',
  'faceSwapVideo',
  'findFaces',
  'inspectContent',
  'fingerprint',
] as const;
export type PoolMethod = (typeof POOL_METHODS)[number];

/**
 * Tasks that exist only for the pool's own tests (crash, run out of memory, spin): a thread runs
 * them only when its pool was made with `testHooks`, which nothing in the backend sets.
 */
export type PoolTestMethod = 'test:exit' | 'test:oom' | 'test:spin';

/** Data every thread of a pool starts with. */
export interface PoolWorkerData {
  /** LocalCpuEngine options that can cross threads (no logger: logs come back on `logChannel`). */
  engine: Omit<LocalCpuEngineOptions, 'logger'>;
  /**
   * Load the content check's models in the background once the thread is up, while it has no task
   * (a task loads what it needs itself); the thread takes tasks from the start either way.
   */
  warmup: boolean;
  /**
   * Added to the thread's nice value once its background warm-up is over (at once without one):
   * the models load at the process's own priority, the tasks after run at the pool's.
   */
  niceIncrement: number;
  testHooks: boolean;
  /**
   * Tests only (with testHooks): the background warm-up loads nothing until [0] is set to 1, so a
   * test sees what a task does while the other models are still not loaded.
   */
  warmupGate?: Int32Array;
  /** BroadcastChannel name on which threads send their log lines to the pool's logger. */
  logChannel: string;
}

export interface PoolTask {
  method: PoolMethod | PoolTestMethod;
  /** The request, with every Buffer as a Uint8Array (transferred). */
  request: unknown;
  /** Progress goes out on it; 'abort' comes in on it. */
  port: MessagePort;
  /**
   * Shared between the two threads: [ABORTED] is set to 1 by the calling thread when the task is
   * cancelled (a thread inside a long synchronous stretch, such as a model tile or an exemplar-fill
   * pass, handles no messages, so `signal.throwIfAborted()` reads this flag); [NATIVE_CALLS] counts
   * native calls the thread is inside, during which it must not be terminated.
   */
  flags: Int32Array;
}

export const ABORTED = 0;
export const NATIVE_CALLS = 1;

/** Errors thrown by engine code, sent as data: a thrown class does not survive the thread boundary. */
export type PoolError =
  | { kind: 'input'; code: string; message: string }
  | { kind: 'unavailable'; capability: string }
  | { kind: 'aborted'; message: string }
  | { kind: 'other'; name: string; message: string; stack?: string };

export type PoolOutcome = { ok: true; value: unknown } | { ok: false; error: PoolError };

/** Messages on a task's port, from the pool thread. */
export interface ProgressMessage {
  progress: number;
}

/** Messages on the log channel. */
export interface LogMessage {
  level: 'log' | 'warn';
  message: string;
}

/** On the log channel: a thread is up and takes tasks, has loaded a model, or has warmed up. */
export type ThreadEvent =
  | { event: 'ready'; threadId: number }
  | { event: 'model'; threadId: number; model: EngineModel }
  | { event: 'warm'; threadId: number };

export const ABORT_MESSAGE = 'abort';
