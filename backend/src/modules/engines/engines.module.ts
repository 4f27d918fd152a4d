import { Module } from '@nestjs/common';
import { EngineFaults } from './engine-faults';
import { EngineRegistry } from './engine-registry';
import { EnginesStatusService } from './engines-status.service';
import { EnginesController } from './engines.controller';
import { PredictionUpdatesHub } from './prediction-updates';

/**
 * The inference engines of this process (shared by generation, operations, health and metrics),
 * the admin engines board and Replicate's webhook. Why a module of its own: see index.ts.
 */
@Module({
  controllers: [EnginesController],
  providers: [EngineRegistry, EngineFaults, PredictionUpdatesHub, EnginesStatusService],
  exports: [EngineRegistry, EngineFaults, PredictionUpdatesHub],
})
export class EnginesModule {}
