/**
 * The takedown module's face: notice and removal (TAKE IT DOWN Act; DSA Art. 16, 17, 20).
 * Above folders, provenance, engines, accounts (whose AccountSuspensions it calls when an owner
 * reaches TAKEDOWN_SUSPEND_AFTER confirmed removals), mail and audit; below generation, whose job runner
 * fingerprints each output and checks it against the block list before storing it.
 */
export { TakedownModule } from './takedown.module';
export { CopyFinder } from './copy-finder';
export { FingerprintBackfill } from './fingerprint-backfill';
export type { StoredPrint } from './copy-finder';
