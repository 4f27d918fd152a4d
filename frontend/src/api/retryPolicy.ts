/**
 * When to ask the studio again after it said it is briefly unavailable (503 with Retry-After) or
 * did not answer at all. Used by reads (GET), which are safe to repeat, and by the availability
 * probe; writes are never repeated by the client (a second submission could be a second charge).
 *
 * Exponential backoff with "equal jitter" (half the step fixed, half random): tabs that lost the
 * studio together do not all come back in the same instant, and no wait is near zero. A
 * Retry-After the server sends is honoured (waited at least, with a little jitter on top) up to a
 * ceiling, so a misconfigured header cannot park the page for an hour.
 */
export const RetryPolicy = {
  /** The first wait, doubled at each attempt. */
  baseMs: 1_000,
  /** No backoff step waits longer than this. */
  capMs: 15_000,
  /** A server's Retry-After is honoured up to this. */
  retryAfterCapMs: 30_000,
  /** A read gives up (and its screen shows its own error, the banner staying) after this long. */
  readBudgetMs: 120_000,
} as const;

/**
 * Milliseconds a Retry-After header asks for: delay-seconds or an HTTP date (RFC 9110 10.2.3).
 * Undefined when absent or unreadable.
 */
export function retryAfterMs(header: string | null | undefined, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP date names its day and month ("Mon, 07 Dec 2026 02:00:30 GMT"); Date.parse alone
  // would also take "-5" for a year.
  const at = /[a-z]{3}/i.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * How long to wait before attempt number `attempt + 1` (attempt 0 is the first retry).
 * `random` is injectable for tests; it returns [0, 1).
 */
export function retryDelayMs(
  attempt: number,
  retryAfter?: number,
  random: () => number = Math.random,
): number {
  const step = Math.min(RetryPolicy.capMs, RetryPolicy.baseMs * 2 ** Math.max(0, attempt));
  const backoff = step / 2 + random() * (step / 2);
  if (!retryAfter || retryAfter <= 0) return Math.round(backoff);
  // The server knows when it expects to be back: wait at least that (up to the ceiling), spread by
  // up to a fifth so that every client does not return in the same second, and never less than
  // the backoff has grown to (a server that keeps saying "1 s" is not asked every second).
  const asked = Math.min(retryAfter, RetryPolicy.retryAfterCapMs);
  return Math.round(Math.max(asked + random() * (asked / 5), backoff));
}
