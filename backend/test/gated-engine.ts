import type {
  CloneRequest,
  EncodedImage,
  InferenceEngine,
  InpaintRequest,
  RunContext,
  SuperResolveRequest,
} from '@studio/inference';
import sharp from 'sharp';

/** One call of the gated engine: the test reports its steps and says when it ends. */
export interface GatedRun {
  report(fraction: number): void;
  finish(): Promise<void>;
}

/**
 * A super resolution engine the test drives step by step (the real engine's other methods stay),
 * so tests wait for the events they need instead of timing a real engine: each call waits until the
 * test finishes it, and reports the fractions the test gives it. The result is the input enlarged 2×.
 */
export function gatedSuperResolution(real: InferenceEngine) {
  const started: GatedRun[] = [];
  const waiters: ((run: GatedRun) => void)[] = [];
  let taken = 0;
  const engine: InferenceEngine = Object.assign(Object.create(real) as InferenceEngine, {
    superResolve: (request: SuperResolveRequest, context?: { onProgress?(f: number): void }) =>
      new Promise<EncodedImage>((resolve, reject) => {
        const run: GatedRun = {
          report: (fraction) => context?.onProgress?.(fraction),
          finish: async () => {
            try {
              const meta = await sharp(request.image).metadata();
              const width = (meta.width ?? 1) * 2;
              const height = (meta.height ?? 1) * 2;
              const data = await sharp(request.image).resize(width, height).png().toBuffer();
              resolve({ data, format: 'png', width, height });
            } catch (err) {
              reject(err as Error);
            }
          },
        };
        started.push(run);
        const waiter = waiters.shift();
        if (waiter) waiter(started[taken++]);
      }),
  });
  return {
    engine,
    /** The next call of the engine (one that started already, or the coming one). */
    nextRun(): Promise<GatedRun> {
      if (started.length > taken) return Promise.resolve(started[taken++]);
      return new Promise((resolve) => waiters.push(resolve));
    },
  };
}

/**
 * A Magic Brush engine the test finishes job by job (the result is the image itself); a cancelled
 * job's run ends at once with its signal, as the real engines do.
 */
export function gatedInpaint(real: InferenceEngine) {
  type Run = { finish(): void };
  const started: Run[] = [];
  const waiters: ((run: Run) => void)[] = [];
  let taken = 0;
  const engine: InferenceEngine = Object.assign(Object.create(real) as InferenceEngine, {
    inpaint: (request: InpaintRequest, context?: RunContext) =>
      new Promise<EncodedImage>((resolve, reject) => {
        context?.signal?.addEventListener('abort', () => reject(new Error('cancelled')));
        const run: Run = {
          finish: () => {
            void sharp(request.image)
              .metadata()
              .then((meta) =>
                resolve({
                  data: request.image,
                  format: 'png',
                  width: meta.width ?? 1,
                  height: meta.height ?? 1,
                }),
              );
          },
        };
        started.push(run);
        const waiter = waiters.shift();
        if (waiter) waiter(started[taken++]);
      }),
  });
  return {
    engine,
    nextRun(): Promise<Run> {
      if (started.length > taken) return Promise.resolve(started[taken++]);
      return new Promise((resolve) => waiters.push(resolve));
    },
  };
}

/** One call of the gated clone engine: how many copies it was asked for, and its end. */
export interface GatedClone {
  amount: number;
  finish(): void;
}

/**
 * A clone engine the test finishes call by call (the copies are the input itself), so a test sees
 * which job a worker started, and in what order, without timing real work.
 */
export function gatedClone(real: InferenceEngine) {
  const started: GatedClone[] = [];
  const waiters: ((run: GatedClone) => void)[] = [];
  let taken = 0;
  const engine: InferenceEngine = Object.assign(Object.create(real) as InferenceEngine, {
    clone: (request: CloneRequest) =>
      new Promise<EncodedImage[]>((resolve, reject) => {
        const run: GatedClone = {
          amount: request.amount,
          finish: () => {
            void sharp(request.image)
              .metadata()
              .then((meta) =>
                resolve(
                  Array.from({ length: request.amount }, () => ({
                    data: request.image,
                    format: 'png' as const,
                    width: meta.width ?? 1,
                    height: meta.height ?? 1,
                  })),
                ),
              )
              .catch(reject);
          },
        };
        started.push(run);
        const waiter = waiters.shift();
        if (waiter) waiter(started[taken++]);
      }),
  });
  return {
    engine,
    /** The next call of the engine (one that started already, or the coming one). */
    nextRun(): Promise<GatedClone> {
      if (started.length > taken) return Promise.resolve(started[taken++]);
      return new Promise((resolve) => waiters.push(resolve));
    },
  };
}
