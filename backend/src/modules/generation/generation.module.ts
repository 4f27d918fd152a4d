import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { AgeAssuranceModule } from '../age-assurance';
import { ApiKeyUsageController, ApiKeyUsageReport } from './api-key-usage';
import { ApiKeysModule } from '../api-keys';
import { BillingModule } from '../billing';
import { ContentSafetyModule } from '../content-safety';
import { FoldersModule } from '../folders';
import { RealtimeModule } from '../realtime';
import { OperationsModule } from '../operations';
import { ProvenanceModule } from '../provenance';
import { TakedownModule } from '../takedown';
import { EnginesModule, JobQueuesModule } from '../engines';
import { GenerationController } from './generation.controller';
import { FaceSwapChecks } from './face-swap-check';
import { GenerationService } from './generation.service';
import { StaleUploadSweep, UploadSlots } from './generation-uploads';
import { InpaintController } from './inpaint.controller';
import { InpaintService } from './inpaint.service';
import { StudioToolsController } from './studio-tools.controller';
import { Job, JobSchema } from './job.schema';
import { JobLifecycle } from './job-lifecycle.service';
import { JobHistory } from './job-history.service';
import { JobControlController } from './job-control.controller';
import { JobControlService } from './job-control.service';
import { JobCancelSignals } from './job-control.signals';
import { JobModerationListener } from './job-moderation.listener';
import { JobInputs } from './job-inputs.service';
import { QueuePositions } from './queue-positions';
import { OpenJobLimit } from './open-job-limit';

/** Tool requests → jobs → results: the records, queues, engines and the end of each job. */
@Module({
  imports: [
    MongooseModule.forFeature([{ name: Job.name, schema: JobSchema }]),
    JobQueuesModule,
    BillingModule,
    ApiKeysModule,
    AgeAssuranceModule,
    ContentSafetyModule,
    FoldersModule,
    RealtimeModule,
    EnginesModule,
    OperationsModule,
    ProvenanceModule,
    TakedownModule,
  ],
  controllers: [
    GenerationController,
    InpaintController,
    StudioToolsController,
    JobControlController,
    ApiKeyUsageController,
  ],
  providers: [
    GenerationService,
    ApiKeyUsageReport,
    FaceSwapChecks,
    JobLifecycle,
    JobHistory,
    QueuePositions,
    OpenJobLimit,
    JobControlService,
    JobCancelSignals,
    JobInputs,
    JobModerationListener,
    InpaintService,
    UploadSlots,
    StaleUploadSweep,
  ],
  exports: [
    GenerationService,
    JobLifecycle,
    QueuePositions,
    JobCancelSignals,
    EnginesModule,
    JobQueuesModule,
    MongooseModule,
    FoldersModule,
  ],
})
export class GenerationModule {}
