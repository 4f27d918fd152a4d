import { Module } from '@nestjs/common';
import { CoreModule } from '../../src/core.module';
import { WorkerProcessorsModule } from './worker.module';

@Module({ imports: [CoreModule, WorkerProcessorsModule] })
export class WorkerAppModule {}
