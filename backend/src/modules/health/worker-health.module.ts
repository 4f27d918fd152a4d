import { Module } from '@nestjs/common';
import { EnginesModule } from '../engines';
import { WorkerHealthServer } from './worker-health.server';

/** The worker process's probes on HEALTH_WORKER_PORT (the API answers its own on /api/health/*). */
@Module({
  imports: [EnginesModule],
  providers: [WorkerHealthServer],
})
export class WorkerHealthModule {}
