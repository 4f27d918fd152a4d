/** The metrics module's face: the module (API and worker), its registry, and the path it serves. */
export { MetricsModule } from './metrics.module';
export { METRICS_PATH } from './metrics.controller';
export { StudioMetrics } from './studio-metrics';
