/** The restore module's face: what the next start does after `npm run restore`. */
export { RestoreModule } from './restore.module';
export { RESTORE_FAILURE_MESSAGE } from './restore-recovery';
