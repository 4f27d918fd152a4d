import type Stripe from 'stripe';
import { inspectedSession } from './stripe-card-check.adapter';

/** A setup-mode Checkout Session as Stripe returns it with `expand: ['setup_intent.payment_method']`. */
function session(over: { funding?: string; intent?: string; status?: string; purpose?: string }) {
  return {
    id: 'cs_test_1',
    object: 'checkout.session',
    mode: 'setup',
    status: over.status ?? 'complete',
    client_reference_id: 'u1',
    metadata: { userId: 'u1', purpose: over.purpose ?? 'age_check' },
    setup_intent: {
      id: 'seti_1',
      object: 'setup_intent',
      status: over.intent ?? 'succeeded',
      payment_method: { id: 'pm_1', object: 'payment_method', card: { funding: over.funding ?? 'credit' } },
    },
  } as unknown as Stripe.Checkout.Session;
}

describe("the card check reads Stripe's answer", () => {
  it('a completed session with a credit card', () => {
    expect(inspectedSession(session({}))).toEqual({
      userId: 'u1',
      confirmed: true,
      funding: 'credit',
      reference: 'seti_1',
      paymentMethodId: 'pm_1',
    });
  });

  it.each(['debit', 'prepaid'])('keeps the funding of a %s card (the service refuses it)', (funding) => {
    expect(inspectedSession(session({ funding }))?.funding).toBe(funding);
  });

  it('an unknown funding is not credit', () => {
    expect(inspectedSession(session({ funding: 'charge_card' }))?.funding).toBe('unknown');
  });

  it('is not confirmed until the session is complete and the SetupIntent succeeded', () => {
    expect(inspectedSession(session({ status: 'open' }))?.confirmed).toBe(false);
    expect(inspectedSession(session({ intent: 'requires_action' }))?.confirmed).toBe(false);
  });

  it('knows only its own sessions (not a coin purchase)', () => {
    expect(inspectedSession(session({ purpose: 'coins' }))).toBeNull();
  });
});
