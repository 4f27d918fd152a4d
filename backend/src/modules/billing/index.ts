/**
 * The billing module's face: the ledger (reserve, capture, refund credits, exactly once), the
 * payments port (Stripe), a job's liveness for stale reservations, and the ledger entry schema.
 *
 * Above accounts (it owns the money fields of the account document) and below generation (which
 * reserves and settles through LedgerService) and account-data (which anonymises the entries of
 * a deleted account). Balance changes reach browsers and the audit log as domain events.
 */
export { BillingModule } from './billing.module';
export { JobLiveness } from './job-liveness';
export { LedgerEntry, LedgerEntrySchema } from './ledger-entry.schema';
export type { Settlement } from './ledger.service';
export { jobReservationKey, LedgerService } from './ledger.service';
export { PaymentsPort } from './payments.port';
export { stripeOptions } from './stripe-payments.adapter';
