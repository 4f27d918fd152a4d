/**
 * The health module's face: the API's health routes (the report, liveness and readiness) and the
 * worker process's probes. It reads engines and mail and nothing imports it but the two apps.
 */
export { HealthController } from './health.controller';
export { WorkerHealthModule } from './worker-health.module';
