import { loadConfig } from '../../config/app-config';
import { balanceOf, markEmailVerified, signIn, uniqueName } from '../../../test/clients';
import { stripeTestConfig } from '../../../test/stripe';
import { startTestApp, type TestApp } from '../../../test/test-app';

const checkout = (client: Awaited<ReturnType<typeof signIn>>, packs = 1) =>
  client.agent.post('/api/createCheckoutSession').send({ coin_id: 'coins-200', coin_amount: packs });

describe('local test payments (STRIPE_TEST_CHECKOUT, real stripe-mock, FerretDB, Redis)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ ...stripeTestConfig(), STRIPE_TEST_CHECKOUT: 'true' });
  });
  afterAll(() => t.close());

  it('walks a checkout to the test page, credits once on Pay through the webhook path', async () => {
    const buyer = await signIn(t, uniqueName('buyer'));
    await markEmailVerified(t, buyer.username);
    expect((await buyer.agent.get('/api/billing/status')).body.content).toMatchObject({
      paymentsConfigured: true,
      testMode: true,
    });
    const started = await checkout(buyer, 2);
    expect(started.status).toBe(200);
    const match = String(started.body.content).match(/\/stripe\/test-checkout\/(cs_test_\w+)$/);
    expect(match).not.toBeNull();
    const sessionId = match![1]!;

    const details = await buyer.agent.get(`/api/stripe/test-checkout/${sessionId}`);
    expect(details.body.content).toEqual({
      sessionId,
      packs: 2,
      coins: 400,
      amountCents: 2000,
      testMode: true,
    });
    // Until paid, the return page hears "pending"; after, the coins the ledger credited.
    expect((await buyer.agent.get(`/api/checkout/${sessionId}`)).body.content).toEqual({
      sessionId,
      credited: null,
    });

    // Someone else cannot see or pay it.
    const other = await signIn(t, uniqueName('other'));
    expect((await other.agent.get(`/api/stripe/test-checkout/${sessionId}`)).status).toBe(404);
    expect((await other.agent.post(`/api/stripe/test-checkout/${sessionId}/pay`)).status).toBe(404);

    const paid = await buyer.agent.post(`/api/stripe/test-checkout/${sessionId}/pay`);
    expect(paid.status).toBe(200);
    expect(paid.body.content).toEqual({ credited: 400, alreadyCredited: false });
    expect(await balanceOf(buyer)).toBe(400);
    // A second press (a replayed event) moves no money, and says so.
    const again = await buyer.agent.post(`/api/stripe/test-checkout/${sessionId}/pay`);
    expect(again.status).toBe(200);
    expect(again.body.content).toEqual({ credited: 0, alreadyCredited: true });
    expect(await balanceOf(buyer)).toBe(400);
    expect((await buyer.agent.get(`/api/checkout/${sessionId}`)).body.content).toEqual({
      sessionId,
      credited: 400,
    });
    const kinds = (await buyer.agent.get('/api/credits/history')).body.content.items.map(
      (e: { kind: string }) => e.kind,
    );
    expect(kinds).toEqual(['purchase']);
    // "Billing" after a test purchase: no Stripe portal exists, the studio's credit history does.
    const billing = await buyer.agent.post('/api/createPortalSession').send({ username: buyer.username });
    expect({ status: billing.status, url: billing.body.content }).toEqual({
      status: 200,
      url: expect.stringMatching(/\/credits$/),
    });
  });

  it('answers 404 for a made-up session id', async () => {
    const user = await signIn(t, uniqueName('guess'));
    expect((await user.agent.get('/api/stripe/test-checkout/cs_test_madeup123')).status).toBe(404);
    expect((await user.agent.get('/api/checkout/cs_test_madeup123')).status).toBe(404);
  });
});

describe('STRIPE_TEST_CHECKOUT is refused outside a test key and a stand-in', () => {
  it('names the setting', () => {
    expect(() =>
      loadConfig({
        MONGODB_URI: 'mongodb://127.0.0.1:1/x',
        REDIS_URL: 'redis://127.0.0.1:1',
        STRIPE_TEST_CHECKOUT: 'true',
        STRIPE_SECRET_KEY: 'sk_live_x',
        STRIPE_WEBHOOK_SECRET: 'whsec_x',
      }),
    ).toThrow(/STRIPE_TEST_CHECKOUT/);
  });
});

describe('test payments off (the default)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(stripeTestConfig());
  });
  afterAll(() => t.close());

  it('has no test page and sends checkouts to Stripe', async () => {
    const buyer = await signIn(t, uniqueName('real'));
    await markEmailVerified(t, buyer.username);
    expect((await checkout(buyer)).body.content).toMatch(/^https:\/\/checkout\.stripe\.com\//);
    expect((await buyer.agent.get('/api/stripe/test-checkout/cs_test_abc')).status).toBe(404);
  });
});
