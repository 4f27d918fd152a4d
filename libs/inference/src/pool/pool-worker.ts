import { getPriority, setPriority } from 'node:os';
import { BroadcastChannel, threadId } from 'node:worker_threads';
import { workerData } from 'piscina';
import { CapabilityUnavailableError, EngineInputError } from '../engine.port';
import sharp from 'sharp';
import { CONTENT_CHECK_MODELS, LocalCpuEngine } from '../local-engine';
import { OnnxSrModel } from '../sr-onnx';
import type { EngineLogger } from '../logger';
import {
  ABORTED,
  ABORT_MESSAGE,
  NATIVE_CALLS,
  POOL_METHODS,
  type LogMessage,
  type PoolError,
  type PoolMethod,
  type PoolOutcome,
  type PoolTask,
  type PoolWorkerData,
  type ThreadEvent,
} from './pool-protocol';
import { fromWire, toWire } from './wire';

/**
 * One pool thread: one LocalCpuEngine of its own (its own tfjs, Human and OpenCV instances), one
 * task at a time (piscina's default). Within the thread, model calls still go through
 * tf-runtime's modelQueue (a module, so one queue per thread): a video swap detects several
 * frames at once and Human keeps per-call state.
 */
const data = workerData as PoolWorkerData;
const logs = new BroadcastChannel(data.logChannel);
logs.unref();
const logger: EngineLogger = {
  log: (message) => logs.postMessage({ level: 'log', message } satisfies LogMessage),
  warn: (message) => logs.postMessage({ level: 'warn', message } satisfies LogMessage),
};
const event = (message: ThreadEvent) => logs.postMessage(message);
const engine = new LocalCpuEngine({
  ...data.engine,
  logger,
  onModelLoaded: (model) => event({ event: 'model', threadId, model }),
});

/** The running task's flags (see PoolTask.flags); one task at a time per thread. */
let taskFlags: Int32Array | undefined;

/**
 * Counts native calls in progress in [NATIVE_CALLS] of the running task's flags, so the pool waits
 * for them before it terminates the thread: onnxruntime-node aborts the whole process when its
 * synchronous run returns into a terminating thread (sr-onnx.ts), and sharp can crash it when a
 * thread is terminated mid-operation (lovell/sharp#2263). Engine code checks the signal between
 * such calls, so a cancelled task normally stops by itself right after one.
 */
function guardNative(proto: object, method: string): void {
  const target = proto as Record<string, unknown>;
  const original = target[method];
  if (typeof original !== 'function') return;
  target[method] = function (this: unknown, ...args: unknown[]) {
    const flags = taskFlags;
    if (flags) Atomics.add(flags, NATIVE_CALLS, 1);
    const done = () => flags && Atomics.sub(flags, NATIVE_CALLS, 1);
    let result: unknown;
    try {
      result = (original as (...a: unknown[]) => unknown).apply(this, args);
    } catch (error) {
      done();
      throw error;
    }
    if (result instanceof Promise) return result.finally(done);
    done(); // a callback-style or synchronous call
    return result;
  };
}
guardNative(OnnxSrModel.prototype, 'run');
for (const method of ['toBuffer', 'toFile', 'metadata', 'stats']) guardNative(sharp.prototype, method);

/**
 * Runs one task. The outcome goes back on the task's port with its buffers transferred (a 4x
 * super resolution's PNG is tens of MB: copying it on the calling thread would cost that thread
 * the copy and a garbage collection); piscina's own answer only says the task is over.
 */
async function runTask(task: PoolTask): Promise<null> {
  taskRunning = true;
  try {
    const transfer: ArrayBuffer[] = [];
    const outcome = await outcomeOf(task, transfer);
    task.port.postMessage({ outcome }, transfer);
    task.port.close();
    return null;
  } finally {
    taskRunning = false;
    for (const wake of idleWaiters.splice(0)) wake();
    if (warm) lowerPriority();
  }
}

async function outcomeOf(task: PoolTask, transfer: ArrayBuffer[]): Promise<PoolOutcome> {
  taskFlags = task.flags;
  task.port.postMessage({ started: true });
  const { signal, dispose } = taskSignal(task);
  const context = {
    signal,
    onProgress: (fraction: number) => task.port.postMessage({ progress: fraction }),
  };
  try {
    const request = fromWire(task.request);
    let value: unknown;
    if ((POOL_METHODS as readonly string[]).includes(task.method)) {
      const method = task.method as PoolMethod;
      const call = engine[method].bind(engine) as (r: unknown, c: typeof context) => Promise<unknown>;
      value = await call(request, context);
    } else if (data.testHooks) {
      value = await testTask(task.method, request as TestRequest, context);
    } else {
      throw new Error(`Unknown pool task ${task.method}`);
    }
    return { ok: true, value: toWire(value, transfer) };
  } catch (error) {
    return { ok: false, error: describe(error, signal) };
  } finally {
    dispose();
    taskFlags = undefined;
  }
}

/**
 * The task's AbortSignal in this thread. Aborted by the port's 'abort' message (wakes code that
 * waits: ffmpeg is killed at once) or, inside synchronous work that handles no messages, when
 * engine code reads `aborted` or calls `throwIfAborted()` and finds the shared flag set.
 */
function taskSignal(task: PoolTask): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const { signal } = controller;
  const nativeAborted = Object.getOwnPropertyDescriptor(AbortSignal.prototype, 'aborted')!.get!;
  const sync = () => {
    if (!nativeAborted.call(signal) && Atomics.load(task.flags, ABORTED) === 1) {
      controller.abort(abortError());
    }
  };
  Object.defineProperty(signal, 'aborted', {
    get: () => {
      sync();
      return nativeAborted.call(signal) as boolean;
    },
  });
  signal.throwIfAborted = () => {
    sync();
    AbortSignal.prototype.throwIfAborted.call(signal);
  };
  const onMessage = (message: unknown) => {
    if (message === ABORT_MESSAGE) sync();
  };
  task.port.on('message', onMessage);
  sync();
  return { signal, dispose: () => task.port.off('message', onMessage) };
}

function abortError(): Error {
  return new DOMException('The task was cancelled', 'AbortError');
}

function describe(error: unknown, signal: AbortSignal): PoolError {
  if (error instanceof EngineInputError) return { kind: 'input', code: error.code, message: error.message };
  if (error instanceof CapabilityUnavailableError)
    return { kind: 'unavailable', capability: error.capability };
  if (signal.aborted) return { kind: 'aborted', message: 'The task was cancelled' };
  if (error instanceof Error) {
    return { kind: 'other', name: error.name, message: error.message, stack: error.stack };
  }
  return { kind: 'other', name: 'Error', message: String(error) };
}

interface TestRequest {
  /** test:spin: busy steps of this many ms, progress after each; test:oom: ignored. */
  stepMs?: number;
  /** test:spin: stop after this many steps (default: until `release` is set). */
  steps?: number;
  /** test:spin: set [0] to 1 to let the task end. */
  release?: Int32Array;
  /** test:spin: whether the loop checks the signal between steps (true) or spins on regardless. */
  cooperative?: boolean;
  /** test:spin: each step is a guarded call, as if it were native (an onnxruntime run). */
  native?: boolean;
  /**
   * test:spin with `native`: from the second step on (the first one's progress tells the test the
   * task runs), each step's call sets [0] to 1 while it runs and returns only once [1] is 1, so a
   * test can cancel while the call certainly runs and end the call when it chooses.
   */
  gate?: Int32Array;
}

/** CPU-bound like a model tile: no await, no messages. */
function busy(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until);
}

/** Inside until the test opens the gate (TestRequest.gate). */
function held(gate: Int32Array): void {
  Atomics.store(gate, 0, 1);
  Atomics.notify(gate, 0);
  while (Atomics.load(gate, 1) !== 1) Atomics.wait(gate, 1, 0, 50);
  Atomics.store(gate, 0, 0);
}

/** Stand-ins for a native call, guarded as one (test:spin with `native`). */
const testNative = { busy, held };
guardNative(testNative, 'busy');
guardNative(testNative, 'held');

/** The pool's own test tasks (only with `testHooks`): a dying thread and a thread that spins. */
async function testTask(
  method: string,
  request: TestRequest,
  context: { signal: AbortSignal; onProgress(f: number): void },
): Promise<unknown> {
  switch (method) {
    case 'test:exit':
      process.exit(70); // in a worker thread this ends the thread, not the process
      break;
    case 'test:oom': {
      const hoard: number[][] = [];
      for (;;) hoard.push(new Array<number>(1_000_000).fill(hoard.length));
    }
    case 'test:spin': {
      const stepMs = request.stepMs ?? 20;
      for (let step = 1; ; step++) {
        if (request.native && request.gate && step > 1) testNative.held(request.gate);
        else if (request.native) testNative.busy(stepMs);
        else busy(stepMs);
        context.onProgress(Math.min(0.99, step / (request.steps ?? 1000)));
        if (request.cooperative) context.signal.throwIfAborted();
        const done = { steps: step, threadId, nice: getPriority(0) };
        if (request.steps !== undefined && step >= request.steps) return done;
        if (request.release && Atomics.load(request.release, 0) === 1) return done;
      }
    }
  }
  throw new Error(`Unknown test task ${method}`);
}

/** Whether a task runs (one at a time per thread); who waits for the thread to be idle. */
let taskRunning = false;
const idleWaiters: (() => void)[] = [];
/** Set once the background warm-up is over (or there is none). */
let warm = false;
let lowered = false;

/** Resolves when the thread has no task. */
function idle(): Promise<void> {
  return taskRunning ? new Promise((resolve) => idleWaiters.push(resolve)) : Promise.resolve();
}

/**
 * Raises this thread's nice by the pool's increment, once, between tasks (a running task keeps its
 * priority to its end). On Linux a thread's nice is its own (setpriority on the calling thread), and
 * it cannot be lowered again: so the models load first, at the process's priority, and only the
 * tasks after run at the pool's. Loading them at +19 took minutes beside other busy programs.
 */
function lowerPriority(): void {
  if (lowered || taskRunning || !data.niceIncrement) return;
  lowered = true;
  try {
    setPriority(0, Math.min(19, getPriority(0) + data.niceIncrement));
    logger.log(`Engine pool thread: models loaded, its tasks run at nice ${getPriority(0)} from now on`);
  } catch (error) {
    logger.warn(`Engine pool thread: nice not raised: ${String(error)}`);
  }
}

/**
 * Loads the content check's models (every job's inputs and outputs pass it), one by one, each only
 * while the thread has no task: a task loads what it needs itself. A tool's own models (super
 * resolution's, OpenCV.js) load on that tool's first use: loaded here they would hold up whatever
 * task came in meanwhile (a clone behind the OpenCV.js load), and each loads in well under a second
 * (docs/engines.md). A model that cannot load is reported and loaded again on first use.
 */
async function warmUp(): Promise<void> {
  const started = Date.now();
  for (const model of CONTENT_CHECK_MODELS) {
    await gateOpen();
    await idle();
    await engine
      .loadModel(model)
      .catch((error: unknown) =>
        logger.warn(`Engine pool thread: ${model} failed to load: ${String(error)}`),
      );
  }
  logger.log(`Engine pool thread warmed up in the background in ${Date.now() - started} ms`);
  warm = true;
  event({ event: 'warm', threadId });
  lowerPriority();
}

/** The tests' hold on the background warm-up (PoolWorkerData.warmupGate). */
async function gateOpen(): Promise<void> {
  const gate = data.testHooks ? data.warmupGate : undefined;
  // Atomics.waitAsync (Node 16+) is not in the ES2023 lib this package compiles against
  const waitAsync = (
    Atomics as unknown as { waitAsync(a: Int32Array, i: number, v: number): { value: unknown } }
  ).waitAsync;
  while (gate && Atomics.load(gate, 0) === 0) await waitAsync(gate, 0, 0).value;
}

function start(): (task: PoolTask) => Promise<null> {
  // The thread takes tasks as soon as its code is loaded; its models load behind them.
  event({ event: 'ready', threadId });
  if (data.warmup) setImmediate(() => void warmUp());
  else {
    warm = true;
    lowerPriority();
  }
  return runTask;
}

export = start();
