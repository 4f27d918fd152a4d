/**
 * The health module's face: the readiness route. It reads engines and mail and nothing imports
 * it but the API app.
 */
export { HealthController } from './health.controller';
