import { Module } from '@nestjs/common';
import { EngineRegistry } from './engine-registry';
import { PredictionUpdatesHub } from './prediction-updates';

/** The inference engines of this process (shared by generation and operations). */
@Module({
  providers: [EngineRegistry, PredictionUpdatesHub],
  exports: [EngineRegistry, PredictionUpdatesHub],
})
export class EnginesModule {}
