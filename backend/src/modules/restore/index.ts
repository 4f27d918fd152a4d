/**
 * The restore module's face: what the next start does after `npm run restore`. Above generation,
 * whose jobs in progress at backup time it fails and refunds through generation's face; only the
 * apps and metrics import it.
 */
export { RestoreModule } from './restore.module';
export { RESTORE_FAILURE_MESSAGE } from './restore-recovery';
