/**
 * Signed webhooks (issue 41): the events a user may subscribe an endpoint to, what each delivery
 * carries, the retry schedule and the texts, written once for the server, the account screen, the
 * docs and the tests. Deliveries follow the Standard Webhooks specification
 * (https://www.standardwebhooks.com): headers `webhook-id`, `webhook-timestamp` and
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, and a body of
 * `{type, timestamp, data}`.
 */
import type { JobTool } from './tools';
import type { LedgerKind } from './billing';

/** What an endpoint may be sent: a job's end (each way it can end) and any change of the balance. */
export const WEBHOOK_EVENT_TYPES = [
  'job.succeeded',
  'job.failed',
  'job.cancelled',
  'balance.changed',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const WEBHOOK_EVENT_LABELS: Record<WebhookEventType, string> = {
  'job.succeeded': 'A job succeeded',
  'job.failed': 'A job failed (coins refunded)',
  'job.cancelled': 'A job was cancelled (coins refunded)',
  'balance.changed': 'Your balance changed',
};

/** Standard Webhooks: a secret is this prefix and the base64 of its random bytes. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** The headers of every delivery (Standard Webhooks). */
export const WEBHOOK_HEADERS = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const;

export const WEBHOOK_LIMITS = {
  /** Endpoints per account. */
  perAccount: 10,
  urlMaxLength: 2048,
  /** Deliveries the account page lists (newest first). */
  recentDeliveries: 50,
} as const;

/**
 * The retry schedule, written once: after a failed attempt the next waits `firstDelayMs`, then
 * `factor` times longer each time (never more than a quarter of the window), and the last attempt is
 * made when the window (24 hours after the first attempt) ends; then the delivery is given up. An
 * endpoint whose deliveries have failed for a whole window is switched off. The server's
 * WEBHOOK_RETRY_FIRST_DELAY_MS and WEBHOOK_RETRY_WINDOW_MS set the two numbers (tests shorten them).
 */
export const WEBHOOK_RETRY = {
  firstDelayMs: 5_000,
  factor: 4,
  windowMs: 24 * 3600_000,
} as const;

export interface WebhookRetrySettings {
  firstDelayMs: number;
  windowMs: number;
}

/** The wait after the n-th failed attempt (1: the first), before the window's end is applied. */
export function webhookRetryDelay(
  failedAttempts: number,
  settings: WebhookRetrySettings = WEBHOOK_RETRY,
): number {
  const first = Math.max(1, settings.firstDelayMs);
  return Math.min(first * WEBHOOK_RETRY.factor ** (failedAttempts - 1), Math.max(1, settings.windowMs / 4));
}

/**
 * When each retry of a delivery is made, in ms after its first attempt: the growing delays added up
 * while they stay inside the window, and one last retry at the window's end.
 */
export function webhookRetrySchedule(settings: WebhookRetrySettings = WEBHOOK_RETRY): number[] {
  const at: number[] = [];
  let elapsed = 0;
  for (let failed = 1; ; failed++) {
    elapsed += webhookRetryDelay(failed, settings);
    if (elapsed >= settings.windowMs) {
      at.push(settings.windowMs);
      return at;
    }
    at.push(elapsed);
  }
}

/**
 * When (ms after the first attempt) to try again after `attemptsMade` attempts have failed, or
 * null: the schedule is spent and the delivery is given up.
 */
export function webhookNextAttemptAt(
  attemptsMade: number,
  settings: WebhookRetrySettings = WEBHOOK_RETRY,
): number | null {
  return webhookRetrySchedule(settings)[attemptsMade - 1] ?? null;
}

/** A retry window in words: "24 hours" (or seconds, for the tests' short windows). */
export function webhookWindowText(windowMs: number): string {
  if (windowMs >= 3600_000) {
    const hours = Math.round((windowMs / 3600_000) * 10) / 10;
    return `${hours} hour${hours === 1 ? '' : 's'}`;
  }
  const seconds = Math.round((windowMs / 1000) * 10) / 10;
  return `${seconds} second${seconds === 1 ? '' : 's'}`;
}

/** An endpoint as its owner sees it; the secret itself is shown once, when it is made. */
export interface WebhookEndpointView {
  id: string;
  url: string;
  events: WebhookEventType[];
  enabled: boolean;
  /** The secret's first characters, to tell endpoints apart. */
  secretPreview: string;
  createdAt: string;
  /** Set while deliveries to it fail: when the first of the current run of failures was. */
  failingSince?: string;
  /** Set when it was switched off, by its owner or because it failed for a whole retry window. */
  disabledAt?: string;
  disabledReason?: string;
}

/** The answer to registering an endpoint: the only time its signing secret is shown. */
export interface CreatedWebhookEndpoint {
  endpoint: WebhookEndpointView;
  secret: string;
}

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One message to one endpoint, with its attempts (the account page's list of recent deliveries). */
export interface WebhookDeliveryView {
  /** The `webhook-id` header: the same on every attempt and replay (receivers dedupe on it). */
  id: string;
  endpointId: string;
  type: WebhookEventType;
  status: WebhookDeliveryStatus;
  /** Attempts since it was recorded or last replayed. */
  attempts: number;
  lastStatusCode?: number;
  lastError?: string;
  jobId?: string;
  createdAt: string;
  lastAttemptAt?: string;
  nextAttemptAt?: string;
  deliveredAt?: string;
}

/** The `data` of each event type. */
export interface WebhookEventData {
  'job.succeeded': { jobId: string; tool: JobTool; state: 'succeeded'; cost: number; outputs: number };
  'job.failed': { jobId: string; tool: JobTool; state: 'failed'; message: string; refunded: number };
  'job.cancelled': {
    jobId: string;
    tool: JobTool;
    state: 'cancelled';
    refunded: number;
    /** Who cancelled: the owner, or a member of staff. */
    by: 'owner' | 'staff';
  };
  'balance.changed': {
    balance: number;
    delta: number;
    reason: string;
    kind: LedgerKind;
    /** The ledger entry (one per change: a receiver may dedupe on it too). */
    entryId: string;
    tool?: string;
    jobId?: string;
  };
}

/** A delivery's body (Standard Webhooks): the event type, when it happened, and its data. */
export interface WebhookMessage<T extends WebhookEventType = WebhookEventType> {
  type: T;
  timestamp: string;
  data: WebhookEventData[T];
}

/** GET /api/account/webhooks/settings: what this deployment lets an endpoint be. */
export interface WebhookSettings {
  /**
   * A local install (WEBHOOK_ALLOW_LOOPBACK, which production refuses) also takes http:// receivers
   * on this machine (127.0.0.1, localhost, ::1), so webhooks can be tried without a public server.
   */
  localReceivers: boolean;
}

export const WebhookMessages = {
  notFound: 'No such webhook endpoint',
  deliveryNotFound: 'No such webhook delivery',
  tooMany: `You have ${WEBHOOK_LIMITS.perAccount} webhook endpoints already: delete one first`,
  httpsOnly: 'A webhook endpoint must be an https:// address',
  badUrl: 'This is not a valid web address',
  credentialsInUrl: 'A webhook address may not carry a user name or password',
  unresolvable: (host: string) => `The host ${host} could not be found`,
  notPublic: (address: string) =>
    `This address points into a private network (${address}): webhooks go only to public internet addresses`,
  stillPending: 'This delivery is still being attempted: wait for it to be delivered or given up',
  endpointOff: 'This endpoint is switched off: switch it on first',
  switchedOff: (window: string) =>
    `Switched off: every delivery failed for ${window}. Fix the receiver, then switch it on again`,
  switchedOffByOwner: 'Switched off by you',
  redirect: (status: number) => `The receiver answered ${status} (redirects are not followed)`,
  timeout: (ms: number) => `No answer within ${ms / 1000} s`,
} as const;
