import { readFile } from 'node:fs/promises';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { SerialQueue } from './serial-queue';

/**
 * The one TensorFlow.js engine of the process, on the wasm backend. The super-resolution model
 * and Human (face analysis) share it: Human's node-wasm build requires the same hoisted
 * @tensorflow packages, so the backend is initialised once here for both.
 */
export { tf };

/** Folder of the backend's .wasm binaries, with a trailing slash (setWasmPaths wants a prefix). */
export const wasmDir =
  path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm')) + path.sep;

/**
 * tfjs-wasm runs on the calling thread, and Human keeps per-call state: every piece of model work
 * of the thread goes through this queue, one at a time. Modules are per thread, so each engine
 * pool thread (pool/pool-worker.ts) has its own queue, its own tfjs and its own models.
 */
export const modelQueue = new SerialQueue();

let ready: Promise<string> | undefined;

/**
 * Initialises the wasm backend once. A failure is not cached, so a later call tries again. (The
 * cpu backend is ~40x slower: it is deliberately not a fallback.)
 */
export function initTf(): Promise<string> {
  ready ??= (async () => {
    tf.env().set('PROD', true);
    setWasmPaths(wasmDir);
    if (!(await tf.setBackend('wasm'))) throw new Error('The tfjs wasm backend failed to initialise');
    await tf.ready();
    registerFileRouter();
    return tf.getBackend();
  })().catch((error: unknown) => {
    ready = undefined;
    throw error;
  });
  return ready;
}

let routerRegistered = false;

/** Lets `loadGraphModel('file://…')` (used by Human) read models from disk instead of fetch. */
function registerFileRouter(): void {
  if (routerRegistered) return;
  routerRegistered = true;
  // A router answers null for URLs it does not handle; tfjs' IORouter type omits that.
  tf.io.registerLoadRouter(((url: string | string[]) =>
    typeof url === 'string' && url.startsWith('file://')
      ? fileHandler(url.slice('file://'.length))
      : null) as Parameters<typeof tf.io.registerLoadRouter>[0]);
}

/** An IO handler reading a model.json and its weight shards from local disk. */
export function fileHandler(modelJsonPath: string): tf.io.IOHandler {
  return {
    load: async () => {
      const modelJson = JSON.parse(await readFile(modelJsonPath, 'utf8')) as tf.io.ModelJSON;
      const dir = path.dirname(modelJsonPath);
      return tf.io.getModelArtifactsForJSON(modelJson, async (manifest) => {
        const weightSpecs = manifest.flatMap((group) => group.weights);
        const shards = await Promise.all(
          manifest.flatMap((group) => group.paths).map((p) => readFile(path.join(dir, p))),
        );
        const all = Buffer.concat(shards);
        const weightData = all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength) as ArrayBuffer;
        return [weightSpecs, weightData];
      });
    },
  };
}
