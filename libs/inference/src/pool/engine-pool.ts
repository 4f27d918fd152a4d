import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { BroadcastChannel, MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { Piscina } from 'piscina';
// sharp's shared libraries must be loaded by the main thread before any worker thread uses them,
// or a thread's exit can unload them under the others (sharp docs, "Worker threads"; lovell/sharp#2263).
import 'sharp';
import { JobMessages } from '@studio/contracts';
import {
  Capability,
  CapabilityUnavailableError,
  CloneRequest,
  EncodedImage,
  EngineCrashedError,
  EngineInputError,
  FaceSwapRequest,
  FaceSwapVideoRequest,
  ContentReport,
  FindFacesRequest,
  FingerprintRequest,
  InspectContentRequest,
  FoundFaces,
  GenerateRequest,
  InferenceEngine,
  InpaintRequest,
  RunContext,
  SuperResolveRequest,
} from '../engine.port';
import type { ImageFingerprint } from '../fingerprint';
import { LOCAL_CPU_CAPABILITIES } from '../local-capabilities';
import type { EngineModel, LocalCpuEngineOptions } from '../local-engine';
import { EngineLogger, silentLogger } from '../logger';
import {
  ABORTED,
  ABORT_MESSAGE,
  NATIVE_CALLS,
  type LogMessage,
  type PoolError,
  type PoolMethod,
  type PoolOutcome,
  type PoolTask,
  type PoolTestMethod,
  type PoolWorkerData,
  type ThreadEvent,
} from './pool-protocol';
import { fromWire, toWire } from './wire';

export interface PooledCpuEngineOptions {
  /** Worker threads, each running one task at a time (default: the cores less one, at least 1). */
  size?: number;
  /** Heap ceiling of each thread in MB (V8's old generation); a task that exceeds it fails the job. */
  memoryMb?: number;
  /** Threads one task's model runtime may use (default: the cores left for the pool / size, >= 1). */
  threads?: number;
  /**
   * Added to the threads' nice value (Linux): the API thread wins the CPU when both want it. Raised
   * once a thread's models are loaded: they load at the process's own priority.
   */
  niceIncrement?: number;
  /**
   * Load the content check's models (CONTENT_CHECK_MODELS: every job needs them) in every thread in
   * the background once it is up (default true). A thread takes tasks from the start either way; a
   * task loads the models it needs itself, a tool's own models on its first use.
   */
  warmup?: boolean;
  /**
   * After a cancel, how long the task may take to stop by itself (engine code checks the signal
   * between steps) before its thread is terminated and replaced.
   */
  abortGraceMs?: number;
  /** Options of each thread's LocalCpuEngine. */
  engine?: Omit<LocalCpuEngineOptions, 'logger' | 'threads'>;
  logger?: EngineLogger;
  /** Lets the threads run the pool's test tasks (crash, out of memory, spin); tests only. */
  testHooks?: boolean;
  /** With testHooks: the background warm-up waits until [0] is 1 (PoolWorkerData.warmupGate). */
  warmupGate?: Int32Array;
}

/** The cores, less one left for the API's event loop; at least 1. */
export function defaultPoolSize(cores = availableParallelism()): number {
  return Math.max(1, cores - 1);
}

/** Model threads per task so that pool size x threads stays within the cores less one; at least 1. */
export function defaultEngineThreads(poolSize: number, cores = availableParallelism()): number {
  return Math.max(1, Math.floor((cores - 1) / poolSize));
}

export const DEFAULT_POOL_MEMORY_MB = 2048;
const DEFAULT_ABORT_GRACE_MS = 500;
const NATIVE_POLL_MS = 20;

/**
 * The local CPU engine on a pool of worker threads (piscina): each capability runs in a thread
 * holding its own LocalCpuEngine, so the thread that calls it (serving HTTP, sockets and Bull's lock
 * renewal) only posts the request and relays progress. A cancelled task is told to stop and, if it
 * has not within `abortGraceMs`, its thread is terminated; a thread that dies (exit, out of memory)
 * fails its task with EngineCrashedError. piscina replaces lost threads.
 */
export class PooledCpuEngine implements InferenceEngine {
  readonly name = 'local-cpu';
  readonly capabilities = LOCAL_CPU_CAPABILITIES;
  readonly size: number;
  readonly threads: number;
  readonly memoryMb: number;
  private readonly logger: EngineLogger;
  private readonly abortGraceMs: number;
  private pool?: Piscina;
  private logs?: BroadcastChannel;
  private closed = false;
  /** Threads up (taking tasks), by threadId: the models each has loaded, and whether it has warmed up. */
  private readonly up = new Map<number, { models: Set<EngineModel>; warm: boolean }>();
  private waiters: (() => void)[] = [];
  private tasks = 0;

  constructor(private readonly options: PooledCpuEngineOptions = {}) {
    this.size = options.size ?? defaultPoolSize();
    this.threads = options.threads ?? defaultEngineThreads(this.size);
    this.memoryMb = options.memoryMb ?? DEFAULT_POOL_MEMORY_MB;
    this.logger = options.logger ?? silentLogger;
    this.abortGraceMs = options.abortGraceMs ?? DEFAULT_ABORT_GRACE_MS;
  }

  clone(request: CloneRequest, context?: RunContext): Promise<EncodedImage[]> {
    return this.run('clone', request, context);
  }

  superResolve(request: SuperResolveRequest, context?: RunContext): Promise<EncodedImage> {
    return this.run('superResolve', request, context);
  }

  faceSwap(request: FaceSwapRequest, context?: RunContext): Promise<EncodedImage> {
    return this.run('faceSwap', request, context);
  }

  inpaint(request: InpaintRequest, context?: RunContext): Promise<EncodedImage> {
    return this.run('inpaint', request, context);
  }

  async generate(_request: GenerateRequest, _context?: RunContext): Promise<EncodedImage> {
    throw new CapabilityUnavailableError('generate');
  }

  faceSwapVideo(request: FaceSwapVideoRequest, context?: RunContext): Promise<void> {
    return this.run('faceSwapVideo', request, context);
  }

  findFaces(request: FindFacesRequest, context?: RunContext): Promise<FoundFaces[]> {
    return this.run('findFaces', request, context);
  }

  inspectContent(request: InspectContentRequest, context?: RunContext): Promise<ContentReport[]> {
    return this.run('inspectContent', request, context);
  }

  fingerprint(request: FingerprintRequest, context?: RunContext): Promise<ImageFingerprint[]> {
    return this.run('fingerprint', request, context);
  }

  /**
   * Starts the threads and resolves once each has loaded the content check's models in the
   * background (once each is up, without a warm-up). The pool takes tasks before: see state().
   */
  async warmup(): Promise<void> {
    this.started();
    const warmsUp = this.options.warmup ?? true;
    const done = () =>
      this.up.size >= this.size && [...this.up.values()].every((thread) => !warmsUp || thread.warm);
    while (!done()) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /** Threads started; tasks in the pool (running or waiting for a thread); tasks waiting. */
  stats(): { threads: number; tasks: number; queued: number } {
    return { threads: this.pool?.threads.length ?? 0, tasks: this.tasks, queued: this.pool?.queueSize ?? 0 };
  }

  /**
   * Whether the pool can take tasks now: 'idle' before its threads start (on warmup or first use),
   * 'starting' until each thread is up (its code loaded: a few hundred ms; its models load in the
   * background after, and a task never waits for another tool's), 'ready' after, 'closed' once closed.
   */
  state(): 'idle' | 'starting' | 'ready' | 'closed' {
    if (this.closed) return 'closed';
    if (!this.pool) return 'idle';
    return this.up.size >= this.size ? 'ready' : 'starting';
  }

  /** The models every thread that is up has loaded (none while no thread is up). */
  loadedModels(): EngineModel[] {
    const threads = [...this.up.values()];
    if (threads.length === 0) return [];
    return [...threads[0].models].filter((model) => threads.every((thread) => thread.models.has(model)));
  }

  async close(): Promise<void> {
    this.closed = true;
    const pool = this.pool;
    this.pool = undefined;
    this.logs?.close();
    this.logs = undefined;
    await pool?.destroy();
  }

  /** Runs a test task of the pool (see PooledCpuEngineOptions.testHooks). */
  protected runTestTask<T>(method: PoolTestMethod, request: object, context?: RunContext): Promise<T> {
    return this.run(method, request, context);
  }

  /** The piscina pool, started on first use. */
  protected started(): Piscina {
    if (this.closed) throw new Error('The engine pool is closed');
    if (this.pool) return this.pool;
    const logChannel = `engine-pool-log:${randomUUID()}`;
    this.logs = new BroadcastChannel(logChannel);
    this.logs.unref();
    this.logs.onmessage = (event) => this.onLog((event as { data: LogMessage | ThreadEvent }).data);
    const workerData: PoolWorkerData = {
      engine: { ...this.options.engine, threads: this.threads },
      warmup: this.options.warmup ?? true,
      // applied by each thread once its models are loaded, not by piscina as the thread starts
      niceIncrement: this.options.niceIncrement ?? 0,
      testHooks: this.options.testHooks ?? false,
      warmupGate: this.options.testHooks ? this.options.warmupGate : undefined,
      logChannel,
    };
    const pool = new Piscina({
      filename: workerFile(),
      minThreads: this.size,
      maxThreads: this.size,
      idleTimeout: Infinity, // a thread keeps its loaded models
      resourceLimits: { maxOldGenerationSizeMb: this.memoryMb },
      workerData,
      // Between tasks a thread waits with Atomics.waitAsync, not piscina's default Atomics.wait,
      // which would halt its event loop, and with it the background load of its models, whenever it
      // is idle. (A task's cancellation and progress go over its own MessagePort while it runs.)
      atomics: 'async',
    });
    // Errors of threads with no task (a failed start, for one) come here rather than to a run().
    pool.on('error', (error: Error) => this.logger.warn(`Engine pool: ${error.message}`));
    // A thread that died no longer counts as up (its replacement reports itself when it is).
    pool.on('workerDestroy', (worker: { threadId: number }) => this.up.delete(worker.threadId));
    this.pool = pool;
    this.logger.log(
      `Engine pool: ${this.size} thread(s), ${this.threads} model thread(s) each, heap ceiling ${this.memoryMb} MB`,
    );
    return pool;
  }

  private onLog(message: LogMessage | ThreadEvent): void {
    if ('event' in message) {
      const thread = this.up.get(message.threadId) ?? { models: new Set<EngineModel>(), warm: false };
      this.up.set(message.threadId, thread);
      if (message.event === 'model') thread.models.add(message.model);
      if (message.event === 'warm') thread.warm = true;
      for (const wake of this.waiters.splice(0)) wake();
      return;
    }
    this.logger[message.level](message.message);
  }

  private run<T>(method: PoolMethod | PoolTestMethod, request: object, context: RunContext = {}): Promise<T> {
    const { signal, onProgress } = context;
    signal?.throwIfAborted();
    const pool = this.started();
    const { port1, port2 } = new MessageChannel();
    const flags = new Int32Array(new SharedArrayBuffer(8));
    const transfer: ArrayBuffer[] = [];
    const task: PoolTask = { method, request: toWire(request, transfer), port: port2, flags };
    const hardStop = new AbortController();
    this.tasks++;

    return new Promise<T>((resolve, reject) => {
      let answered = false;
      let graceTimer: NodeJS.Timeout | undefined;
      const answer = (settle: () => void) => {
        if (answered) return;
        answered = true;
        port1.removeAllListeners('message');
        signal?.removeEventListener('abort', onAbort);
        settle();
      };
      let started = false;
      let outcome: PoolOutcome | undefined;
      const onMessage = (message: { progress?: unknown; started?: boolean; outcome?: PoolOutcome }) => {
        if (message?.outcome) outcome = message.outcome;
        else if (message?.started) started = true;
        else if (typeof message?.progress === 'number') onProgress?.(message.progress);
      };
      port1.on('message', onMessage);
      // piscina's answer may overtake the port's messages: what the thread posted before it
      // answered (the last progress, the outcome) is already queued on the port, and is read first.
      const drain = () => {
        for (let m = receiveMessageOnPort(port1); m; m = receiveMessageOnPort(port1)) onMessage(m.message);
      };
      // The caller hears of the cancel at once. A task still waiting for a thread leaves the queue;
      // a running one is told to stop, and its thread is terminated if it is still busy after the
      // grace period (piscina then starts a fresh thread).
      const onAbort = () => {
        Atomics.store(flags, ABORTED, 1);
        if (started) {
          port1.postMessage(ABORT_MESSAGE);
          // Never inside a native call (pool-worker.ts guardNative): wait for it to return, then
          // give the task one more grace period to reach its signal check and stop by itself (a
          // busy machine may take longer than one poll between the call's end and that check).
          let waitedForNative = false;
          let graceAfterNative = false;
          const stop = () => {
            if (Atomics.load(flags, NATIVE_CALLS) > 0) {
              waitedForNative = true;
              graceTimer = setTimeout(stop, NATIVE_POLL_MS);
            } else if (waitedForNative && !graceAfterNative) {
              graceAfterNative = true;
              graceTimer = setTimeout(stop, this.abortGraceMs);
            } else {
              hardStop.abort(signal?.reason);
            }
          };
          graceTimer = setTimeout(stop, this.abortGraceMs);
        } else {
          hardStop.abort(signal?.reason);
        }
        answer(() => reject(signal?.reason ?? abortError()));
      };
      signal?.addEventListener('abort', onAbort, { once: true });

      pool
        .run(task, { transferList: [port2, ...transfer], signal: hardStop.signal })
        .then(
          () =>
            answer(() => {
              drain(); // the outcome was posted before the task ended
              if (!outcome) reject(new Error(`The engine pool's ${method} task ended without a result`));
              else if (outcome.ok) resolve(fromWire(outcome.value) as T);
              else reject(toError(outcome.error));
            }),
          (error: Error) => {
            if (hardStop.signal.aborted) return; // we stopped it; the caller already has the abort
            if (this.closed)
              return answer(() => reject(new Error('The engine pool was closed', { cause: error })));
            this.logger.warn(`Engine pool: a ${method} task's thread died: ${error.message}`);
            answer(() => reject(new EngineCrashedError(JobMessages.engineCrashed, { cause: error })));
          },
        )
        .finally(() => {
          this.tasks--;
          clearTimeout(graceTimer);
          port1.close();
        });
    });
  }
}

/** An error thrown in a pool thread, as the class the caller can tell apart. */
function toError(error: PoolError): Error {
  switch (error.kind) {
    case 'input':
      return new EngineInputError(error.code as EngineInputError['code'], error.message);
    case 'unavailable':
      return new CapabilityUnavailableError(error.capability as Capability);
    case 'aborted':
      return abortError();
    case 'other': {
      const made = new Error(error.message);
      made.name = error.name;
      if (error.stack) made.stack = error.stack;
      return made;
    }
  }
}

function abortError(): Error {
  return new DOMException('The task was cancelled', 'AbortError');
}

/**
 * The thread's entry: the compiled pool-worker.js beside this file in dist; from TypeScript sources
 * (jest, ts-node) a bootstrap that loads pool-worker.ts (see pool-worker.dev.cjs).
 */
function workerFile(): string {
  const compiled = path.join(__dirname, 'pool-worker.js');
  return existsSync(compiled) ? compiled : path.join(__dirname, 'pool-worker.dev.cjs');
}
