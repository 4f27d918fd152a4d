import request from 'supertest';
import { Messages } from '@studio/contracts';
import { PASSWORD, eventually, register, uniqueName } from '../../../test/clients';
import { startTestApp, type TestApp } from '../../../test/test-app';

/**
 * Issue 25 point 9: password guessing spread over many client addresses was limited only per
 * address (40 wrong passwords from 4 addresses in a minute, then the right one still worked).
 * Per account name: a few failures free, then one attempt per delay that grows; never a lockout.
 */
const FREE_FAILURES = 4;
const DELAY_BASE_MS = 3000;

describe('login throttling per account', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({
      TRUST_PROXY: 'loopback',
      LOGIN_FREE_FAILURES: String(FREE_FAILURES),
      // Delays long beside the time a burst of guesses takes, even on a busy machine (loaded run
      // 20 let a sixth guess through a 500 ms delay: the burst itself took longer than that).
      LOGIN_DELAY_BASE_MS: String(DELAY_BASE_MS),
      LOGIN_DELAY_MAX_SECONDS: '6',
    });
  });
  afterAll(() => t.close());

  const login = (username: string, password: string, from: string) =>
    request(t.url).post('/api/login').set('X-Forwarded-For', from).send({ username, password });

  it('slows guesses from many addresses with growing delays, and the owner gets in after the wait', async () => {
    const name = uniqueName('victim');
    expect((await register(t, name)).status).toBe(200);
    const bystander = uniqueName('bystander');
    expect((await register(t, bystander)).status).toBe(200);

    // Guesses from four addresses, in parallel: the free ones are checked, the rest refused at
    // once without a password check (they were all checked before, and the right one got in).
    const burstStarted = Date.now();
    const guesses = await Promise.all(
      Array.from({ length: 12 }, (_, i) => login(name, `wrong-guess-${i}`, `198.51.100.${i % 4}`)),
    );
    // Past the free ones, one guess goes through at once and the next only after a delay of at
    // least DELAY_BASE_MS, so a burst that took longer than that may let one more in per delay.
    const checked = FREE_FAILURES + 1 + Math.floor((Date.now() - burstStarted) / DELAY_BASE_MS);
    const statuses = guesses.map((res) => res.status).sort();
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(checked);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(12 - checked);
    const refused = guesses.find((res) => res.status === 429)!;
    expect(refused.body.content).toMatch(/^Too many failed logins for this account: try again in \d+ s$/);
    expect(refused.body.retryAfterSeconds).toBeGreaterThan(0);

    // The right password straight after, from a fresh address, is refused too: no guess is tested.
    const right = await login(name, PASSWORD, '203.0.113.9');
    expect(right.status).toBe(429);
    // Another account is not affected, nor is the name's case a way around it.
    expect((await login(bystander, PASSWORD, '198.51.100.1')).status).toBe(200);
    expect((await login(name.toUpperCase(), PASSWORD, '203.0.113.10')).status).toBe(429);

    // Each allowed attempt pushes the next one further (the delays grow, up to the cap).
    const afterWait = async (password: string, from: string) =>
      eventually(async () => {
        const res = await login(name, password, from);
        expect(res.status).not.toBe(429);
        return res;
      }, 20_000);
    const started = Date.now();
    expect((await afterWait('still-wrong', '198.51.100.7')).status).toBe(401);
    const firstWait = Date.now() - started;
    const again = await login(name, PASSWORD, '203.0.113.9');
    expect(again.status).toBe(429);
    expect(again.body.content).toBe(Messages.loginDelayed(again.body.retryAfterSeconds));

    // Not a lockout: the owner waits at most the cap and gets in; success forgets the failures.
    expect((await afterWait(PASSWORD, '203.0.113.9')).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThan(firstWait);
    expect((await login(name, 'one-typo', '203.0.113.9')).status).toBe(401);
    expect((await login(name, PASSWORD, '203.0.113.9')).status).toBe(200);
  });
});
