import { Inject, Injectable, ServiceUnavailableException } from '@nestjs/common';
import Stripe from 'stripe';
import { PaymentMessages, type CardFunding } from '@studio/contracts';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { stripeOptions } from '../billing';
import { CardCheckPort, type CardCheckInput, type InspectedCardCheck } from './card-check.port';

/** Marks the studio's card checks among Checkout Sessions (the coin packs are mode=payment). */
export const CARD_CHECK_PURPOSE = 'age_check';

/**
 * The credit card check with Stripe: a Checkout Session in setup mode collects and verifies the
 * card with its issuer without any charge; the SetupIntent's payment method tells its funding.
 */
@Injectable()
export class StripeCardCheck extends CardCheckPort {
  protected readonly stripe: Stripe | null;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    super();
    this.stripe = config.STRIPE_SECRET_KEY
      ? new Stripe(config.STRIPE_SECRET_KEY, stripeOptions(config))
      : null;
  }

  get configured(): boolean {
    return this.stripe !== null;
  }

  // The page is Stripe's own: this site's address is not needed.
  async start(input: CardCheckInput, _base?: string): Promise<{ id: string; url: string }> {
    const session = await this.client().checkout.sessions.create({
      mode: 'setup',
      currency: 'usd',
      payment_method_types: ['card'],
      client_reference_id: input.userId,
      metadata: { userId: input.userId, purpose: CARD_CHECK_PURPOSE },
      setup_intent_data: { metadata: { userId: input.userId, purpose: CARD_CHECK_PURPOSE } },
      success_url: input.successUrl,
      cancel_url: input.cancelUrl,
    });
    if (!session.url) throw new ServiceUnavailableException('The payment provider gave no checkout address');
    return { id: session.id, url: session.url };
  }

  async inspect(sessionId: string): Promise<InspectedCardCheck | null> {
    const session = await this.client()
      .checkout.sessions.retrieve(sessionId, { expand: ['setup_intent.payment_method'] })
      .catch((err: { code?: string }) => {
        if (err.code === 'resource_missing') return null;
        throw err;
      });
    return session ? inspectedSession(session) : null;
  }

  async forget(paymentMethodId: string): Promise<void> {
    try {
      await this.client().paymentMethods.detach(paymentMethodId);
    } catch (err) {
      // Never attached to a customer (a setup session without one), or already gone: nothing kept.
      if ((err as { type?: string }).type !== 'StripeInvalidRequestError') throw err;
    }
  }

  protected client(): Stripe {
    if (!this.stripe) throw new ServiceUnavailableException(PaymentMessages.notConfigured);
    return this.stripe;
  }
}

/** What a retrieved setup-mode session (its SetupIntent and payment method expanded) says. */
export function inspectedSession(session: Stripe.Checkout.Session): InspectedCardCheck | null {
  if (session.mode !== 'setup' || session.metadata?.purpose !== CARD_CHECK_PURPOSE) return null;
  const intent = typeof session.setup_intent === 'object' ? session.setup_intent : null;
  const method = intent && typeof intent.payment_method === 'object' ? intent.payment_method : null;
  return {
    userId: session.metadata?.userId ?? session.client_reference_id ?? '',
    confirmed: session.status === 'complete' && intent?.status === 'succeeded',
    funding: fundingOf(method?.card?.funding),
    reference: intent?.id ?? session.id,
    paymentMethodId: method?.id,
  };
}

function fundingOf(funding: string | undefined): CardFunding {
  return funding === 'credit' || funding === 'debit' || funding === 'prepaid' ? funding : 'unknown';
}
