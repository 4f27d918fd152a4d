import { DynamicModule, Module } from '@nestjs/common';
import type { AppConfig } from '../../src/config/app-config';
import { CoreModule } from '../../src/core.module';
import { AccountDataModule } from '../../src/modules/account-data';
import { AccountsModule } from '../../src/modules/accounts';
import { ApiKeysModule } from '../../src/modules/api-keys';
import { AuditModule } from '../../src/modules/audit';
import { AuthModule } from '../../src/modules/auth';
import { BillingModule } from '../../src/modules/billing';
import { FoldersModule } from '../../src/modules/folders';
import { GenerationModule } from '../../src/modules/generation';
import { HealthController } from '../../src/modules/health';
import { MetricsModule } from '../../src/modules/metrics';
import { ProvenanceModule } from '../../src/modules/provenance';
import { RealtimeGateway, RealtimeModule } from '../../src/modules/realtime';
import { RestoreModule } from '../../src/modules/restore';
import { TakedownModule } from '../../src/modules/takedown';
import { WebhooksModule } from '../../src/modules/webhooks';
import { WorkerProcessorsModule } from '../../worker/src/worker.module';

@Module({})
export class AppModule {
  /** The HTTP app; with WORKER_INLINE the worker's processors run in this process too. */
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CoreModule.forRoot(config),
        AuthModule,
        AccountsModule,
        AccountDataModule,
        ApiKeysModule,
        FoldersModule,
        BillingModule,
        GenerationModule,
        ProvenanceModule,
        AuditModule,
        RealtimeModule,
        MetricsModule,
        RestoreModule,
        TakedownModule,
        WebhooksModule,
        ...(config.WORKER_INLINE ? [WorkerProcessorsModule] : []),
      ],
      controllers: [HealthController],
      providers: [RealtimeGateway],
    };
  }
}
