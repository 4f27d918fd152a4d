import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { BillingModule } from '../billing/billing.module';
import { FoldersModule } from '../folders/folders.module';
import { RealtimeModule } from '../realtime/realtime.module';
import { EngineRegistry } from './engine-registry';
import { GenerationController } from './generation.controller';
import { GenerationService } from './generation.service';
import { Job, JobSchema } from './job.schema';
import { JobLifecycle } from './job-lifecycle.service';
import { JobQueuesModule } from './job-queues';

/** Tool requests → jobs → results: the records, queues, engines and the end of each job. */
@Module({
  imports: [
    MongooseModule.forFeature([{ name: Job.name, schema: JobSchema }]),
    JobQueuesModule,
    BillingModule,
    FoldersModule,
    RealtimeModule,
  ],
  controllers: [GenerationController],
  providers: [GenerationService, JobLifecycle, EngineRegistry],
  exports: [GenerationService, JobLifecycle, EngineRegistry, JobQueuesModule, MongooseModule, FoldersModule],
})
export class GenerationModule {}
