/**
 * The audit module's face: the audit log (AuditService), its admin routes and statistics, and
 * the listener that writes a line for each domain event worth one.
 *
 * Above events, auth and realtime (admins get new lines pushed). Most lines come from domain
 * events (AuditListener), so the modules that act (accounts, billing, generation) never import
 * audit; only provenance, above it, appends directly.
 */
export { AuditListener } from './audit.listener';
export { AuditModule } from './audit.module';
export type { NewAuditEntry } from './audit.service';
export { AuditService, authorKey } from './audit.service';
