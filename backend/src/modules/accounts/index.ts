/**
 * The accounts module's face: the account store (AccountsRepository), registration and login
 * (AccountsService), the account's own security (email, password, tokens), and the Account
 * schema whose money fields billing writes.
 *
 * Above auth, which reads accounts only through its ACCOUNT_DIRECTORY port (provided here), and
 * below billing, folders, operations and account-data, which read accounts. Work that spans an
 * account and other modules' data (profile, export, deletion) lives above, in account-data.
 */
export { Account } from './account.schema';
export { AccountSecurityService } from './account-security.service';
export { AccountTokens } from './account-tokens';
export type { SuspensionActor } from './account-suspensions';
export { AccountSuspensions } from './account-suspensions';
export { AccountsModule } from './accounts.module';
export type { AccountRecord } from './accounts.repository';
export { AccountsRepository, isDuplicateKeyError } from './accounts.repository';
export { AccountsService } from './accounts.service';
