import Stripe from 'stripe';
import request from 'supertest';

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
