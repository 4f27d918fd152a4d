/**
 * Personal API keys (issue 41): what a key may do, its limits and its texts, written once for the
 * server, the account screen and the tests. A key acts as its owner with the role `user` only:
 * staff powers, the account itself and payments are never reachable with a key.
 */
import { plural } from './messages';

/** What a key may be allowed: read (jobs, folders, balance), run tools, write folders. */
export const API_KEY_SCOPES = ['read', 'tools', 'folders'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

export const API_KEY_SCOPE_LABELS: Record<ApiKeyScope, string> = {
  read: 'Read jobs, folders and the balance',
  tools: 'Run tools (spends coins)',
  folders: 'Create, rename and delete folders and items',
};

/** Every key starts with this, so leaked keys are recognisable (secret scanners, logs). */
export const API_KEY_PREFIX = 'sk_studio_';

export const API_KEY_LIMITS = {
  /** Live (not revoked) keys per account. */
  perAccount: 10,
  nameMaxLength: 60,
  /** The highest monthly spending cap a key may have, in coins. */
  monthlyCapMax: 1_000_000,
} as const;

/** A key as its owner sees it; the secret itself is shown once, when it is made. */
export interface ApiKeyView {
  id: string;
  name: string;
  scopes: ApiKeyScope[];
  /** The key's first characters, to tell keys apart (never enough to use it). */
  preview: string;
  /** Coins this key may spend per calendar month (UTC); absent: no cap beyond the balance. */
  monthlyCap?: number;
  /** Coins spent through this key this month (refunds given back). */
  spentThisMonth: number;
  /** The key stops working when the owner changes the password. */
  revokeOnPasswordChange: boolean;
  createdAt: string;
  lastUsedAt?: string;
  revokedAt?: string;
}

/** The answer to creating a key: the only time its secret is shown. */
export interface CreatedApiKey {
  key: ApiKeyView;
  secret: string;
}

export const ApiKeyMessages = {
  invalid: 'This API key is not valid (revoked, expired or mistyped)',
  scope: (scope: ApiKeyScope | undefined) =>
    scope
      ? `This API key may not do this: it needs the "${scope}" permission`
      : 'This cannot be done with an API key: sign in on the website',
  tooMany: `You have ${API_KEY_LIMITS.perAccount} API keys already: revoke one first`,
  capReached: (cap: number) =>
    `This API key has reached its monthly spending cap of ${plural(cap, 'coin')}: raise it on your account page or wait for next month`,
  tooManyRequests: (retryAfterSeconds: number) =>
    `Too many requests with this API key: try again in ${retryAfterSeconds} s`,
  notFound: 'No such API key',
  staffNoKeys: 'Staff accounts cannot make API keys: use a separate user account for scripts',
} as const;

/** The calendar month (UTC) a spend counts against, YYYY-MM. */
export function spendMonth(at = new Date()): string {
  return at.toISOString().slice(0, 7);
}

/**
 * Safe retries (Stripe's rules): a job submission or folder write with `Idempotency-Key` is done
 * once; the same key with the same request within 24 hours gets the first answer again (with
 * `Idempotent-Replayed: true`), with another request 409.
 */
export const IDEMPOTENCY = {
  header: 'idempotency-key',
  replayedHeader: 'idempotent-replayed',
  maxKeyLength: 255,
  keepSeconds: 24 * 3600,
} as const;

export const IdempotencyMessages = {
  badKey: `An Idempotency-Key is 1 to ${IDEMPOTENCY.maxKeyLength} visible characters`,
  reused:
    'This Idempotency-Key was used with a different request in the last 24 hours: use a new key for a new request',
  inProgress: 'A request with this Idempotency-Key is still in progress: retry when it has answered',
} as const;

/** Days the usage page shows, today (UTC) included. */
export const API_KEY_USAGE_DAYS = 30;

/** One key's use of one tool on one UTC day: jobs asked for, and coins spent (refunds not counted). */
export interface ApiKeyUsageRow {
  day: string;
  keyId: string;
  tool: string;
  jobs: number;
  coins: number;
}

/** GET /api/account/api-keys/usage: the last API_KEY_USAGE_DAYS days, oldest first. */
export interface ApiKeyUsage {
  days: string[];
  rows: ApiKeyUsageRow[];
}
