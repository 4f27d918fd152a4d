import { DynamicModule, Module } from '@nestjs/common';
import type { AppConfig } from '../../src/config/app-config';
import { CoreModule } from '../../src/core.module';
import { AccountDataModule } from '../../src/modules/account-data/account-data.module';
import { AccountsModule } from '../../src/modules/accounts/accounts.module';
import { AuditModule } from '../../src/modules/audit/audit.module';
import { AuthModule } from '../../src/modules/auth/auth.module';
import { BillingModule } from '../../src/modules/billing/billing.module';
import { FoldersModule } from '../../src/modules/folders/folders.module';
import { GenerationModule } from '../../src/modules/generation/generation.module';
import { HealthController } from '../../src/modules/health/health.controller';
import { MetricsModule } from '../../src/modules/metrics';
import { ProvenanceModule } from '../../src/modules/provenance';
import { RealtimeGateway } from '../../src/modules/realtime/realtime.gateway';
import { RealtimeModule } from '../../src/modules/realtime/realtime.module';
import { RestoreModule } from '../../src/modules/restore';
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
        FoldersModule,
        BillingModule,
        GenerationModule,
        ProvenanceModule,
        AuditModule,
        RealtimeModule,
        MetricsModule,
        RestoreModule,
        ...(config.WORKER_INLINE ? [WorkerProcessorsModule] : []),
      ],
      controllers: [HealthController],
      providers: [RealtimeGateway],
    };
  }
}
