import type { ApiKeyScope } from '@studio/contracts';

/** A request's API key, once the directory has found it live. */
export interface ApiKeyCaller {
  keyId: string;
  userId: string;
  scopes: ApiKeyScope[];
  /** Coins per UTC month this key may spend; undefined: no cap beyond the balance. */
  monthlyCap?: number;
  /** The owner's password version the key was made under, when it ends on a password change. */
  credentialsVersion?: number;
}

/**
 * The port through which auth finds the key of an `Authorization: Bearer` request. Auth sits below
 * the api-keys module (which uses auth's guards and decorators), so the api-keys module provides it.
 */
export interface ApiKeyDirectory {
  /** The live key for this secret, or null (unknown, revoked, malformed); any string may come in. */
  resolve(secret: string): Promise<ApiKeyCaller | null>;
}

export const API_KEY_DIRECTORY = Symbol('API_KEY_DIRECTORY');
