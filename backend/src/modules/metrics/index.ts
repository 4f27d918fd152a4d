/**
 * The metrics module's face: the module (API and worker), its registry, and the path it serves.
 * At the top of the tree: it reads generation, engines, realtime and restore (and counts domain
 * events), and nothing imports it but the two apps.
 */
export { MetricsModule } from './metrics.module';
export { METRICS_PATH } from './metrics.controller';
export { StudioMetrics } from './studio-metrics';
