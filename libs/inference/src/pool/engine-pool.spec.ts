import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { EngineCrashedError, EngineInputError, RunContext } from '../engine.port';
import { PooledCpuEngine, PooledCpuEngineOptions } from './engine-pool';

/** The pool with its test tasks reachable (they exist only with testHooks). */
class TestPool extends PooledCpuEngine {
  constructor(options: PooledCpuEngineOptions = {}) {
    super({ size: 1, warmup: false, ...options, testHooks: true });
  }
  spin(
    request: {
      steps?: number;
      stepMs?: number;
      release?: Int32Array;
      cooperative?: boolean;
      native?: boolean;
      gate?: Int32Array;
    },
    context?: RunContext,
  ) {
    return this.runTestTask<{ steps: number; threadId: number }>('test:spin', request, context);
  }
  exit() {
    return this.runTestTask('test:exit', {});
  }
  oom() {
    return this.runTestTask('test:oom', {});
  }
  /** Resolves when a thread of the pool has exited. */
  threadExit(): Promise<unknown> {
    return once(this.started(), 'workerDestroy');
  }
}

const fixtures = path.resolve(__dirname, '../../fixtures');

/** A promise settled from outside, to wait for an event rather than a time. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('PooledCpuEngine', () => {
  jest.setTimeout(120_000);

  describe('a thread that dies', () => {
    const pool = new TestPool();
    afterAll(() => pool.close());

    it('fails its task with EngineCrashedError, and the next task runs on a fresh thread', async () => {
      const before = await pool.spin({ steps: 1 });
      const exited = pool.threadExit();
      await expect(pool.exit()).rejects.toBeInstanceOf(EngineCrashedError);
      await exited;
      const after = await pool.spin({ steps: 1 });
      expect(after.threadId).not.toBe(before.threadId);
    });
  });

  describe('a thread beyond its heap ceiling', () => {
    const pool = new TestPool({ memoryMb: 48 });
    afterAll(() => pool.close());

    it('fails its task with EngineCrashedError (out of memory), and the pool serves on', async () => {
      const error = await pool.oom().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EngineCrashedError);
      expect(((error as Error).cause as { code?: string }).code).toBe('ERR_WORKER_OUT_OF_MEMORY');
      await expect(pool.spin({ steps: 1 })).resolves.toMatchObject({ steps: 1 });
    });
  });

  describe('cancel of a running task', () => {
    const pool = new TestPool();
    afterAll(() => pool.close());

    /** Starts an endless spin, aborts it at its first progress, then runs the next task. */
    async function abortAndNext(cooperative: boolean, onRejected: () => void = () => undefined) {
      const controller = new AbortController();
      const firstProgress = deferred();
      const spinning = pool.spin(
        { cooperative },
        { signal: controller.signal, onProgress: () => firstProgress.resolve() },
      );
      const outcome = spinning.catch((e: unknown) => {
        onRejected();
        return e;
      });
      await firstProgress.promise;
      const abortedAt = Date.now();
      controller.abort();
      const error = await outcome;
      return { error, abortedAt, nextTask: await pool.spin({ steps: 2 }) };
    }

    it('stops a task that checks its signal on the same thread, without terminating it', async () => {
      const { threadId } = await pool.spin({ steps: 1 });
      let terminated = false;
      void pool.threadExit().then(() => (terminated = true));
      const { error, nextTask } = await abortAndNext(true);
      expect((error as Error).name).toBe('AbortError');
      expect(terminated).toBe(false);
      expect(nextTask.threadId).toBe(threadId);
    });

    it('terminates a thread that does not stop by itself once the grace period is over', async () => {
      const { threadId } = await pool.spin({ steps: 1 });
      let exited = false;
      const exitedAt = pool.threadExit().then(() => {
        exited = true;
        return Date.now();
      });
      let exitedWhenRejected: boolean | undefined;
      const { error, abortedAt, nextTask } = await abortAndNext(false, () => (exitedWhenRejected = exited));
      // The task is rejected at once, while its stuck thread still runs...
      expect((error as Error).name).toBe('AbortError');
      expect(exitedWhenRejected).toBe(false);
      // ...which is terminated after the grace period (500 ms), not before...
      expect((await exitedAt) - abortedAt).toBeGreaterThanOrEqual(490);
      // ...and a fresh one took the next task
      expect(nextTask.threadId).not.toBe(threadId);
    });

    it('does not terminate a thread inside a native call: the task stops after it, on the same thread', async () => {
      const graceMs = 50;
      const guarded = new TestPool({ abortGraceMs: graceMs });
      // [0]: the call runs; [1]: the test lets it return
      const gate = new Int32Array(new SharedArrayBuffer(8));
      try {
        const { threadId } = await guarded.spin({ steps: 1 });
        let exited = false;
        void guarded.threadExit().then(() => (exited = true));
        const controller = new AbortController();
        const running = deferred();
        const spinning = guarded.spin(
          { native: true, cooperative: true, gate },
          { signal: controller.signal, onProgress: () => running.resolve() },
        );
        spinning.catch(() => undefined);
        await running.promise; // the pool knows the task runs (a cancel before would drop it at once)
        // inside the second step's call (waitAsync: Node has it; the ES2023 lib does not declare it)
        await (Atomics as unknown as AtomicsWaitAsync).waitAsync(gate, 0, 0).value;
        controller.abort();
        await expect(spinning).rejects.toMatchObject({ name: 'AbortError' });
        // The abort set the pool's grace timer; a timer set after it with a longer delay fires
        // after it (and after the native polls it then makes): the grace is over, the call still runs.
        await new Promise((resolve) => setTimeout(resolve, graceMs * 4));
        expect(Atomics.load(gate, 0)).toBe(1);
        expect(exited).toBe(false);
        // The call returns, the task sees its signal and stops: the same thread serves on.
        Atomics.store(gate, 1, 1);
        const next = await guarded.spin({ steps: 1 });
        expect(next.threadId).toBe(threadId);
        expect(exited).toBe(false);
      } finally {
        Atomics.store(gate, 1, 1);
        await guarded.close();
      }
    });

    it('drops a task cancelled while it waits for a thread, without running it', async () => {
      const release = new Int32Array(new SharedArrayBuffer(4));
      const running = pool.spin({ release });
      const controller = new AbortController();
      let progressed = false;
      const waiting = pool.spin(
        { steps: 1 },
        { signal: controller.signal, onProgress: () => (progressed = true) },
      );
      controller.abort();
      await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
      Atomics.store(release, 0, 1);
      await running;
      await pool.spin({ steps: 1 }); // the queue moved on past the dropped task
      expect(progressed).toBe(false);
    });
  });

  describe('engine work in the pool', () => {
    const pool = new PooledCpuEngine({ size: 1, warmup: false });
    afterAll(() => pool.close());

    it('super-resolves in a thread, relaying progress, and returns a Buffer', async () => {
      const image = await sharp(await readFile(path.join(fixtures, 'ai-face.jpg')))
        .resize(64, 64)
        .png()
        .toBuffer();
      const progress: number[] = [];
      const result = await pool.superResolve({ image, scale: 2 }, { onProgress: (f) => progress.push(f) });
      expect(Buffer.isBuffer(result.data)).toBe(true);
      expect(result).toMatchObject({ format: 'png', width: 128, height: 128 });
      expect(await sharp(result.data).metadata()).toMatchObject({ width: 128, height: 128 });
      expect(progress.length).toBeGreaterThan(0);
      expect(progress.at(-1)).toBe(1);
    });

    it('clones in a thread', async () => {
      const image = await sharp({ create: { width: 32, height: 24, channels: 3, background: '#806040' } })
        .png()
        .toBuffer();
      const copies = await pool.clone({ image, amount: 2 });
      expect(copies.map((c) => [c.width, c.height, Buffer.isBuffer(c.data)])).toEqual([
        [32, 24, true],
        [32, 24, true],
      ]);
    });

    it('brings an input error back as EngineInputError', async () => {
      const face = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#ffffff' } })
        .jpeg()
        .toBuffer();
      const error = await pool.faceSwap({ face, target: face }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EngineInputError);
      expect(error).toMatchObject({ code: 'no_face_source' });
    });
  });
});

/** Atomics.waitAsync (ES2024), which Node has and the project's ES2023 lib does not declare. */
interface AtomicsWaitAsync {
  waitAsync(array: Int32Array, index: number, value: number): { value: Promise<string> | string };
}
