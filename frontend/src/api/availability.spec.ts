import { Messages } from '@studio/contracts';
import {
  isOutageText,
  isStudioUnavailable,
  NO_RESPONSE,
  STUDIO_NOT_ANSWERING,
  StudioAvailability,
} from './availability';

describe('isStudioUnavailable', () => {
  it("is the API's brief-outage 503, no answer, or a proxy saying the API did not answer", () => {
    expect(isStudioUnavailable(503, Messages.briefOutage)).toBe(true);
    expect(isStudioUnavailable(NO_RESPONSE, undefined)).toBe(true);
    expect(isStudioUnavailable(502, undefined)).toBe(true);
    expect(isStudioUnavailable(504, undefined)).toBe(true);
  });
  it("is not a feature's own 503 (a tool or payments not configured), nor other errors", () => {
    expect(isStudioUnavailable(503, 'Image generation is not configured')).toBe(false);
    expect(isStudioUnavailable(500, Messages.serverError)).toBe(false);
    expect(isStudioUnavailable(429, Messages.tooManyRequests)).toBe(false);
    expect(isStudioUnavailable(200, Messages.briefOutage)).toBe(false);
  });
});

describe('StudioAvailability', () => {
  /** A readiness probe the test answers one call at a time. */
  function scriptedProbe() {
    const calls: ((answer: { status: number; retryAfter?: number }) => void)[] = [];
    const probe = jest.fn(
      () => new Promise<{ status: number; retryAfter?: number }>((resolve) => calls.push(resolve)),
    );
    return { probe, answer: (status: number, retryAfter?: number) => calls.shift()!({ status, retryAfter }) };
  }
  const settle = () => jest.advanceTimersByTimeAsync(0);

  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it("goes down once however many requests fail, and says the server's words when it spoke", async () => {
    const { probe } = scriptedProbe();
    const studio = new StudioAvailability(probe);
    const changes = jest.fn();
    studio.subscribe(changes);
    expect(studio.message).toBeNull();

    studio.reportUnavailable();
    studio.reportUnavailable();
    expect(studio.message).toBe(STUDIO_NOT_ANSWERING);
    studio.reportUnavailable(true);
    studio.reportUnavailable(true);
    expect(studio.message).toBe(Messages.briefOutage);
    expect(changes).toHaveBeenCalledTimes(2);
    // One probe scheduled, not one per failed request.
    await jest.advanceTimersByTimeAsync(2_000);
    expect(probe).toHaveBeenCalledTimes(1);
  });

  it("asks the readiness route with backoff, honouring the route's Retry-After, until it answers 200", async () => {
    const { probe, answer } = scriptedProbe();
    const studio = new StudioAvailability(probe);
    const back = jest.fn();
    studio.onBack(back);

    // The first check comes on the backoff's first step, whatever the failed request was told.
    studio.reportUnavailable(true);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(probe).toHaveBeenCalledTimes(1);

    // Readiness says when to ask it again: waited at least.
    answer(503, 10_000);
    await settle();
    expect(studio.unavailable).toBe(true);
    await jest.advanceTimersByTimeAsync(9_999);
    expect(probe).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(2_001);
    expect(probe).toHaveBeenCalledTimes(2);

    answer(NO_RESPONSE);
    await settle();
    await jest.advanceTimersByTimeAsync(4_000);
    expect(probe).toHaveBeenCalledTimes(3);

    answer(200);
    await settle();
    expect(studio.message).toBeNull();
    expect(back).toHaveBeenCalledTimes(1);
    // Up: nothing more is asked.
    await jest.advanceTimersByTimeAsync(60_000);
    expect(probe).toHaveBeenCalledTimes(3);
  });

  it('checks at once when a request succeeds or the socket reconnects, instead of waiting out the backoff', async () => {
    const { probe, answer } = scriptedProbe();
    const studio = new StudioAvailability(probe);
    studio.reportUnavailable(true);
    studio.reportAnswered();
    expect(probe).toHaveBeenCalledTimes(1);
    // A route that works without Redis answering is not enough: readiness still says 503.
    answer(503, 10_000);
    await settle();
    expect(studio.unavailable).toBe(true);
    studio.probeNow();
    answer(200);
    await settle();
    expect(studio.unavailable).toBe(false);
  });

  it('a lost socket asks whether the studio is still there; it stays up if it is', async () => {
    const { probe, answer } = scriptedProbe();
    const studio = new StudioAvailability(probe);
    const changes = jest.fn();
    studio.subscribe(changes);
    studio.probeNow();
    answer(200);
    await settle();
    expect(changes).not.toHaveBeenCalled();
    studio.probeNow();
    answer(NO_RESPONSE);
    await settle();
    expect(studio.message).toBe(STUDIO_NOT_ANSWERING);
  });

  it('wakes the reads that wait for it when it is back, or lets them go at their own time', async () => {
    const { probe, answer } = scriptedProbe();
    const studio = new StudioAvailability(probe);
    studio.reportUnavailable();
    const early = jest.fn();
    void studio.waitForBack(60_000).then(early);
    const late = jest.fn();
    void studio.waitForBack(100).then(late);
    await jest.advanceTimersByTimeAsync(100);
    expect(late).toHaveBeenCalled();
    expect(early).not.toHaveBeenCalled();
    studio.probeNow();
    answer(200);
    await settle();
    expect(early).toHaveBeenCalled();
  });

  it('knows the texts the banner already says', () => {
    expect(isOutageText(Messages.briefOutage)).toBe(true);
    expect(isOutageText(STUDIO_NOT_ANSWERING)).toBe(true);
    expect(isOutageText(Messages.serverError)).toBe(false);
  });
});
