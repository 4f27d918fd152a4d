import { Messages } from '@studio/contracts';
import { briefOutage, callsTo, mockFetch } from '../test/fetchMock';
import { STUDIO_NOT_ANSWERING, studioAvailability } from './availability';
import { apiGet, apiPost, apiUpload, errorText, NO_RESPONSE } from './client';
import { RetryPolicy } from './retryPolicy';

const ok = (content: unknown) => ({ status: 200, body: { message: 'success', content } });
const ready = ok({ status: 'ready' });
const notConfigured = {
  status: 503,
  body: { message: 'error', content: 'Image generation is not configured' },
  headers: { 'retry-after': '10' },
};

/** Answers the listed answers in turn, then the last one for good. */
function inTurn(...answers: { status: number; body?: unknown; headers?: Record<string, string> }[]) {
  let next = 0;
  return () => answers[Math.min(next++, answers.length - 1)];
}

describe('apiGet while the studio is briefly unavailable', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('asks again after the Retry-After the server gave, and returns the answer once it is back', async () => {
    jest.spyOn(Math, 'random').mockReturnValue(0);
    const fetchMock = mockFetch({
      'GET /api/profile': inTurn(briefOutage(10), ok({ name: 'alice' })),
      'GET /api/payments/status': notConfigured,
      'GET /api/health/ready': { status: 503, headers: { 'retry-after': '10' } },
    });
    let result: Awaited<ReturnType<typeof apiGet>> | undefined;
    void apiGet('/profile').then((r) => (result = r));
    await jest.advanceTimersByTimeAsync(0);
    expect(studioAvailability.message).toBe(Messages.briefOutage);

    await jest.advanceTimersByTimeAsync(9_999);
    expect(callsTo(fetchMock, 'GET /api/profile')).toHaveLength(1);
    expect(result).toBeUndefined();
    await jest.advanceTimersByTimeAsync(1);
    expect(callsTo(fetchMock, 'GET /api/profile')).toHaveLength(2);
    expect(result).toMatchObject({ status: 200, body: { content: { name: 'alice' } } });

    // A feature's own 503 (payments not configured) is its answer, not an outage: asked once.
    studioAvailability.reset();
    const status = await apiGet('/payments/status');
    expect(status.status).toBe(503);
    expect(callsTo(fetchMock, 'GET /api/payments/status')).toHaveLength(1);
    expect(studioAvailability.message).toBeNull();
  });

  it('asks again at once when the studio is back, without waiting out its backoff', async () => {
    const fetchMock = mockFetch({
      'GET /api/profile': inTurn(briefOutage(30), ok({ name: 'alice' })),
      'GET /api/health/ready': ready,
    });
    let result: Awaited<ReturnType<typeof apiGet>> | undefined;
    void apiGet('/profile').then((r) => (result = r));
    await jest.advanceTimersByTimeAsync(0);
    // Another request succeeding makes the page check readiness now: back.
    studioAvailability.reportAnswered();
    await jest.advanceTimersByTimeAsync(0);
    expect(studioAvailability.message).toBeNull();
    expect(callsTo(fetchMock, 'GET /api/profile')).toHaveLength(2);
    expect(result?.status).toBe(200);
  });

  it('retries with growing waits when nothing answers, and gives up within its budget', async () => {
    jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const fetchMock = mockFetch({ 'GET /api/health/ready': { status: 503 } });
    fetchMock.mockImplementation(async () => {
      throw new TypeError('Failed to fetch');
    });
    let result: Awaited<ReturnType<typeof apiGet>> | undefined;
    void apiGet('/profile').then((r) => (result = r));
    await jest.advanceTimersByTimeAsync(RetryPolicy.readBudgetMs);
    expect(result).toEqual({ status: NO_RESPONSE, ok: false, body: null });
    const asked = fetchMock.mock.calls.filter(([url]) => String(url) === '/api/profile').length;
    // Backoff, not a loop: 1, 2, 4, 8 then 15 s steps fit about a dozen tries in two minutes.
    expect(asked).toBeGreaterThan(3);
    expect(asked).toBeLessThan(20);
    // It gave up: the banner stays, and no more reads are sent.
    expect(studioAvailability.message).toBe(STUDIO_NOT_ANSWERING);
    await jest.advanceTimersByTimeAsync(60_000);
    expect(fetchMock.mock.calls.filter(([url]) => String(url) === '/api/profile')).toHaveLength(asked);
  });
});

describe('writes while the studio is briefly unavailable', () => {
  it('are sent once, never repeated: the answer goes back to the form as it is', async () => {
    const fetchMock = mockFetch({
      'POST /api/checkout': briefOutage(),
      'POST /api/upload': briefOutage(),
      'GET /api/health/ready': { status: 503 },
    });
    const posted = await apiPost('/checkout', { pack: 1 });
    const uploaded = await apiUpload('/upload', new FormData());
    expect(posted).toMatchObject({ status: 503, retryAfter: 10_000 });
    expect(uploaded.status).toBe(503);
    expect(errorText(posted)).toBe(Messages.briefOutage);
    expect(callsTo(fetchMock, 'POST /api/checkout')).toHaveLength(1);
    expect(callsTo(fetchMock, 'POST /api/upload')).toHaveLength(1);
    expect(studioAvailability.message).toBe(Messages.briefOutage);
  });

  it('says the studio did not answer without promising nothing was charged, which only the server knows', () => {
    expect(errorText({ status: NO_RESPONSE, ok: false, body: null })).toBe(STUDIO_NOT_ANSWERING);
    expect(errorText({ status: 502, ok: false, body: null })).toBe(STUDIO_NOT_ANSWERING);
    expect(errorText({ status: 500, ok: false, body: null })).toBe(Messages.serverError);
  });
});
