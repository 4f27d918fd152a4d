import { Injectable } from '@nestjs/common';
import { EngineRegistry } from '../engines';
import { ContentClassifierPort, type TimedContentCheck } from './content-classifier.port';

/** nsfwjs (MobileNetV2, shipped in its npm package) and Human's faceres ages, in the engine pool's threads. */
@Injectable()
export class PoolContentClassifier extends ContentClassifierPort {
  constructor(private readonly engines: EngineRegistry) {
    super();
  }

  async inspect(images: Buffer[]): Promise<TimedContentCheck[]> {
    if (images.length === 0) return [];
    return this.engines.contentInspector().inspectContent({ images });
  }
}
