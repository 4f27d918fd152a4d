import { Module } from '@nestjs/common';
import { AuditListener } from '../../src/modules/audit/audit.listener';
import { AuditModule } from '../../src/modules/audit/audit.module';
import { SessionEndListener } from '../../src/modules/auth/session-end.listener';
import { SessionRevokerModule } from '../../src/modules/auth/session-revoker';
import { GenerationModule } from '../../src/modules/generation/generation.module';
import { JobRunner } from '../../src/modules/generation/job-runner';
import { ProvenanceModule } from '../../src/modules/provenance';
import { DomainEventsProcessor } from '../../src/modules/events/domain-events.processor';
import { RealtimeListener } from '../../src/modules/realtime/realtime.listener';
import { RealtimeModule } from '../../src/modules/realtime/realtime.module';
import { StorageCleanupListener } from '../../src/modules/storage/storage-cleanup.listener';

/**
 * The worker's processors and event consumers. Imported by the worker app, and by the API app
 * itself when WORKER_INLINE is on (local mode).
 */
@Module({
  imports: [AuditModule, RealtimeModule, GenerationModule, SessionRevokerModule, ProvenanceModule],
  providers: [
    JobRunner,
    DomainEventsProcessor,
    AuditListener,
    RealtimeListener,
    StorageCleanupListener,
    SessionEndListener,
  ],
})
export class WorkerProcessorsModule {}
