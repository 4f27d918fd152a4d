import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { GenerationModule } from '../generation';
import { HttpMetricsMiddleware } from './http-metrics.middleware';
import { JobMetricsListener } from './job-metrics.listener';
import { MetricsCollectors } from './metrics-collectors';
import { MetricsController } from './metrics.controller';
import { StudioMetrics } from './studio-metrics';
import { WorkerMetricsServer } from './worker-metrics.server';

/**
 * Prometheus metrics (prom-client) for operators: GET /metrics on the API, behind METRICS_TOKEN;
 * the worker process serves its own on METRICS_WORKER_PORT. Hooks into what exists (domain events,
 * Bull events, driver events, an HTTP middleware) rather than into the services.
 */
@Module({
  imports: [GenerationModule],
  controllers: [MetricsController],
  providers: [
    {
      provide: StudioMetrics,
      inject: [HttpAdapterHost],
      useFactory: (host: HttpAdapterHost) => new StudioMetrics(host.httpAdapter ? 'api' : 'worker'),
    },
    MetricsCollectors,
    JobMetricsListener,
    WorkerMetricsServer,
  ],
  exports: [StudioMetrics],
})
export class MetricsModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(HttpMetricsMiddleware).forRoutes({ path: '{*path}', method: RequestMethod.ALL });
  }
}
