/**
 * The engines module's face: which inference engine serves each tool (EngineRegistry), the tool
 * queues that feed them, the wake-ups of remote predictions (Replicate's webhook) and the admin
 * engines board.
 *
 * A module below both generation (which runs jobs on the engines) and operations (which shows
 * and switches them): when the registry lived in generation, operations imported generation for
 * it while generation imported operations for its flags and notices, a loop. Health, metrics and
 * restore read the engines and queues from here too. It imports no other module but auth (the
 * admin route's decorators).
 */
export { EngineFaults } from './engine-faults';
export { CAPABILITY_OF, EngineRegistry, REPLICATE_WEBHOOK_PATH } from './engine-registry';
export { EnginesModule } from './engines.module';
export { toolReadiness } from './engines-status.service';
export {
  concurrencyOf,
  jobOptions,
  JobQueuesModule,
  runsQueue,
  toolQueueName,
  toolQueueToken,
} from './job-queues';
export { PredictionUpdatesHub } from './prediction-updates';
