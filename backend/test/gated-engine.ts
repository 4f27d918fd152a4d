import type { EncodedImage, InferenceEngine, SuperResolveRequest } from '@studio/inference';
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
