/**
 * The operations module's face: maintenance notices, feature flags and engine switches
 * (OperationsService), and the admin queue board.
 *
 * Above engines (it shows and switches them), accounts and realtime; below generation, which
 * checks the flags and notices before it accepts a job. The engines board and Replicate's webhook
 * are the engines module's own.
 */
export { OperationsModule } from './operations.module';
export { OperationsService } from './operations.service';
export { mountQueueBoard } from './queue-board';
