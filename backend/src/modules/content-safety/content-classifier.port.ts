import type { ContentCheck } from '@studio/contracts';

/** One image's check and the time it took (benchmarks). */
export interface TimedContentCheck extends ContentCheck {
  timings?: { classifyMs: number; facesMs: number };
}

/**
 * Looks at images before they are used or shown: sexual-content class scores and each face's age
 * estimate. The adapter runs nsfwjs and Human on the engine pool (never on the API's thread); tests
 * put a double in its place that labels marked test images.
 */
export abstract class ContentClassifierPort {
  abstract inspect(images: Buffer[]): Promise<TimedContentCheck[]>;
}
