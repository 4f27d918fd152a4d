import type * as OpenCvModule from '@techstark/opencv-js';

/** The OpenCV.js module (emscripten build of OpenCV 4.5 with its wasm inlined). */
export type OpenCv = typeof OpenCvModule;

let loading: Promise<{ cv: OpenCv }> | undefined;

/**
 * The process's one OpenCV.js instance, initialised on first use. Resolves to `{ cv }` rather than
 * `cv` itself: the emscripten module has a `then` method, so a promise resolved with it would try to
 * adopt it as a thenable.
 *
 * Loading the module on Node registers emscripten's `uncaughtException` and `unhandledRejection`
 * handlers (the latter aborts the runtime and throws from inside the handler); they are removed at
 * once, so the host process keeps its own error handling.
 */
export function loadOpenCv(): Promise<{ cv: OpenCv }> {
  loading ??= new Promise<{ cv: OpenCv }>((resolve, reject) => {
    const exceptions = new Set(process.listeners('uncaughtException'));
    const rejections = new Set(process.listeners('unhandledRejection'));
    let cv: OpenCv & { onRuntimeInitialized?: () => void; onAbort?: (what: unknown) => void };
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      cv = require('@techstark/opencv-js');
    } finally {
      for (const listener of process.listeners('uncaughtException')) {
        if (!exceptions.has(listener)) process.removeListener('uncaughtException', listener);
      }
      for (const listener of process.listeners('unhandledRejection')) {
        if (!rejections.has(listener)) process.removeListener('unhandledRejection', listener);
      }
    }
    if (typeof cv.Mat === 'function') return resolve({ cv }); // already initialised
    cv.onAbort = (what) => reject(new Error(`OpenCV.js failed to initialise: ${String(what)}`));
    cv.onRuntimeInitialized = () => resolve({ cv });
  });
  return loading;
}
