import { DynamicModule, Module } from '@nestjs/common';
import type { AppConfig } from '../../src/config/app-config';
import { CoreModule } from '../../src/core.module';
import { AccountsModule } from '../../src/modules/accounts';
import { RateLimitModule } from '../../src/modules/auth';
import { WorkerHealthModule } from '../../src/modules/health';
import { MetricsModule } from '../../src/modules/metrics';
import { RestoreModule } from '../../src/modules/restore';
import { WorkerProcessorsModule } from './worker.module';

@Module({})
export class WorkerAppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: WorkerAppModule,
      imports: [
        CoreModule.forRoot(config),
        RateLimitModule,
        AccountsModule,
        WorkerProcessorsModule,
        MetricsModule,
        RestoreModule,
        WorkerHealthModule,
      ],
    };
  }
}
