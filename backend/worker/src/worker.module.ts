import { Module } from '@nestjs/common';
import { AgeAssuranceModule } from '../../src/modules/age-assurance';
import { AuditListener, AuditModule } from '../../src/modules/audit';
import { SessionEndListener, SessionRevokerModule } from '../../src/modules/auth';
import { ContentSafetyModule } from '../../src/modules/content-safety';
import { GenerationModule, JobRunner } from '../../src/modules/generation';
import { ProvenanceModule } from '../../src/modules/provenance';
import { DomainEventsProcessor } from '../../src/modules/events';
import { RealtimeListener, RealtimeModule } from '../../src/modules/realtime';
import { StorageCleanupListener } from '../../src/modules/storage';
import { TakedownModule } from '../../src/modules/takedown';
import { WebhookDeliveryProcessor, WebhooksListener, WebhooksModule } from '../../src/modules/webhooks';

/**
 * The worker's processors and event consumers. Imported by the worker app, and by the API app
 * itself when WORKER_INLINE is on (local mode).
 */
@Module({
  imports: [
    // the job runner asks whether an output's owner may see sexual content
    AgeAssuranceModule,
    AuditModule,
    RealtimeModule,
    GenerationModule,
    SessionRevokerModule,
    ProvenanceModule,
    ContentSafetyModule,
    TakedownModule,
    WebhooksModule,
  ],
  providers: [
    JobRunner,
    DomainEventsProcessor,
    AuditListener,
    RealtimeListener,
    StorageCleanupListener,
    SessionEndListener,
    WebhooksListener,
    WebhookDeliveryProcessor,
  ],
})
export class WorkerProcessorsModule {}
