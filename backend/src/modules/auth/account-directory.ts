import type { Role } from '@studio/contracts';

/**
 * The port through which auth reads accounts. Auth sits below accounts (accounts uses its guards,
 * decorators and session revoker), so it cannot import the accounts repository; instead it names
 * what it reads here, and the accounts module provides it (`useExisting: AccountsRepository`).
 */
export interface SessionAccount {
  id: string;
  username: string;
  role: Role;
  /** The password's version: sessions made with an older one are void (sessionIsCurrent). */
  credentialsVersion: number;
  /** Credits, as read with the account: later guards of the same request check them. */
  balance: number;
  /** Suspended after repeated removals (docs/takedown.md): its sessions and API keys are refused. */
  suspended?: boolean;
}

export interface AccountDirectory {
  /** The account, or null when there is none with that id (any string may come in). */
  findById(id: string): Promise<SessionAccount | null>;
}

/** Nest token of the AccountDirectory (provided by the accounts module, which is global). */
export const ACCOUNT_DIRECTORY = Symbol('ACCOUNT_DIRECTORY');
