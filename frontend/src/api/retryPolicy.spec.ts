import { retryAfterMs, retryDelayMs, RetryPolicy } from './retryPolicy';

const low = () => 0;
const high = () => 0.999999;

describe('retryAfterMs', () => {
  it('reads delay-seconds and HTTP dates, and nothing else', () => {
    expect(retryAfterMs('10')).toBe(10_000);
    expect(retryAfterMs(' 0 ')).toBe(0);
    const now = Date.parse('2026-12-07T02:00:00Z');
    expect(retryAfterMs('Mon, 07 Dec 2026 02:00:30 GMT', now)).toBe(30_000);
    // A date already past asks for no wait.
    expect(retryAfterMs('Mon, 07 Dec 2026 01:59:00 GMT', now)).toBe(0);
    expect(retryAfterMs(null)).toBeUndefined();
    expect(retryAfterMs('')).toBeUndefined();
    expect(retryAfterMs('soon')).toBeUndefined();
    expect(retryAfterMs('-5')).toBeUndefined();
  });
});

describe('retryDelayMs', () => {
  it('doubles from the base, half fixed and half random, up to the cap', () => {
    const steps = Array.from({ length: 8 }, (_, attempt) => [
      retryDelayMs(attempt, undefined, low),
      retryDelayMs(attempt, undefined, high),
    ]);
    expect(steps).toEqual([
      [500, 1000],
      [1000, 2000],
      [2000, 4000],
      [4000, 8000],
      [7500, 15000],
      [7500, 15000],
      [7500, 15000],
      [7500, 15000],
    ]);
    expect(RetryPolicy.capMs).toBe(15_000);
  });

  it('spreads the waits of clients that failed together', () => {
    const waits = new Set([0.1, 0.4, 0.7].map((r) => retryDelayMs(3, undefined, () => r)));
    expect(waits.size).toBe(3);
  });

  it("waits at least the server's Retry-After, a little more at random, never under the backoff", () => {
    expect(retryDelayMs(0, 10_000, low)).toBe(10_000);
    expect(retryDelayMs(0, 10_000, () => 0.5)).toBe(11_000);
    expect(retryDelayMs(0, 10_000, high)).toBe(12_000);
    // A server that keeps asking for 1 s is asked less often as the outage goes on.
    expect(retryDelayMs(5, 1_000, low)).toBe(7_500);
    // Retry-After: 0 is no wait asked: the backoff decides.
    expect(retryDelayMs(0, 0, low)).toBe(500);
  });

  it('caps a Retry-After that would park the page', () => {
    expect(retryDelayMs(0, 3_600_000, low)).toBe(RetryPolicy.retryAfterCapMs);
    expect(retryDelayMs(0, 3_600_000, high)).toBe(RetryPolicy.retryAfterCapMs * 1.2);
  });
});
