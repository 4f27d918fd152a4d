import type { Capability } from './engine.port';

/**
 * What the local CPU engine can do, wherever it runs (on the calling thread, or in the pool). A
 * module of its own so that the pool's side can name them without loading the models' code.
 */
export const LOCAL_CPU_CAPABILITIES: ReadonlySet<Capability> = new Set<Capability>([
  'clone',
  'superResolve',
  'faceSwap',
  'inpaint',
  'faceSwapVideo',
]);
