import Stripe from 'stripe';
import request from 'supertest';
import { PaymentsPort } from '../src/modules/billing/payments.port';
import type { TestApp } from './test-app';

export const TEST_WEBHOOK_SECRET = 'whsec_test_studio_secret';

/** Config for an app that talks to stripe-mock (started by `npm test`). */
export function stripeTestConfig(): Record<string, string> {
  const api = process.env.TEST_STRIPE_API_URL;
  if (!api) throw new Error('TEST_STRIPE_API_URL is not set: run the tests with `npm test`');
  return {
    STRIPE_SECRET_KEY: 'sk_test_studio',
    STRIPE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
    STRIPE_API_URL: api,
  };
}

/** A Stripe event as Stripe would send it, signed with the webhook secret (or another one). */
export function signedEvent(type: string, session: Record<string, unknown>, secret = TEST_WEBHOOK_SECRET) {
  const payload = JSON.stringify({
    id: `evt_${Math.random().toString(36).slice(2)}`,
    object: 'event',
    type,
    data: { object: { object: 'checkout.session', ...session } },
  });
  const header = Stripe.webhooks.generateTestHeaderString({ payload, secret });
  return { payload, header };
}

/** Delivers a signed event to the app's webhook endpoint, as Stripe would. */
export function postWebhook(baseUrl: string, event: { payload: string; header: string }) {
  return request(baseUrl)
    .post('/api/stripe/webhook')
    .set('Content-Type', 'application/json')
    .set('Stripe-Signature', event.header)
    .send(event.payload);
}

/**
 * Starts a checkout through the API as a signed-in client whose email is verified, as the Refill
 * page does, and returns the session id stripe-mock gave it (the id the server recorded).
 */
export async function startCheckout(
  t: TestApp,
  client: { agent: ReturnType<typeof request.agent> },
  packs = 1,
): Promise<string> {
  const created = jest.spyOn(t.app.get(PaymentsPort), 'createCheckout');
  try {
    const res = await client.agent
      .post('/api/createCheckoutSession')
      .send({ coin_id: 'coins-200', coin_amount: packs });
    if (res.status !== 200) throw new Error(`checkout failed: ${res.status} ${JSON.stringify(res.body)}`);
    return (await created.mock.results[0]!.value).id;
  } finally {
    created.mockRestore();
  }
}
