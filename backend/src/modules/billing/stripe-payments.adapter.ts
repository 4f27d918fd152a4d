import { Inject, Injectable, ServiceUnavailableException } from '@nestjs/common';
import Stripe from 'stripe';
import { COINS_PER_PACK, PACK_PRICE_CENTS, PaymentMessages } from '@studio/contracts';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { CheckoutInput, CompletedCheckout, PaymentsPort, VerifiedPaymentEvent } from './payments.port';

@Injectable()
export class StripePaymentsAdapter extends PaymentsPort {
  private readonly stripe: Stripe | null;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    super();
    this.stripe = config.STRIPE_SECRET_KEY
      ? new Stripe(config.STRIPE_SECRET_KEY, stripeOptions(config))
      : null;
  }

  get configured(): boolean {
    return this.stripe !== null;
  }

  async createCheckout(input: CheckoutInput): Promise<{ id: string; url: string }> {
    const stripe = this.client();
    const productData = {
      name: `${COINS_PER_PACK} coins`,
      description: `${COINS_PER_PACK} coins for the studio`,
    };
    const session = await stripe.checkout.sessions.create({
      mode: 'payment',
      line_items: [
        {
          quantity: input.packs,
          price_data: {
            currency: 'usd',
            unit_amount: PACK_PRICE_CENTS,
            ...(this.config.STRIPE_COIN_PRODUCT
              ? { product: this.config.STRIPE_COIN_PRODUCT }
              : { product_data: productData }),
          },
        },
      ],
      client_reference_id: input.userId,
      metadata: { userId: input.userId, username: input.username, packs: String(input.packs) },
      ...(input.customerId ? { customer: input.customerId } : { customer_creation: 'always' as const }),
      success_url: input.successUrl,
      cancel_url: input.cancelUrl,
    });
    if (!session.url) throw new ServiceUnavailableException('The payment provider gave no checkout address');
    return { id: session.id, url: session.url };
  }

  async createPortal(customerId: string, returnUrl: string): Promise<string> {
    const portal = await this.client().billingPortal.sessions.create({
      customer: customerId,
      return_url: returnUrl,
    });
    return portal.url;
  }

  async deleteCustomer(customerId: string): Promise<void> {
    try {
      await this.client().customers.del(customerId);
    } catch (err) {
      // Already gone at Stripe: the deletion's goal holds.
      if ((err as { code?: string }).code !== 'resource_missing') throw err;
    }
  }

  async customerOfCheckout(sessionId: string, userId: string): Promise<string | null> {
    const session = await this.client().checkout.sessions.retrieve(sessionId);
    if (session.metadata?.userId !== userId && session.client_reference_id !== userId) return null;
    return typeof session.customer === 'string' ? session.customer : (session.customer?.id ?? null);
  }

  verifyWebhook(rawBody: Buffer, signature: string): VerifiedPaymentEvent {
    if (!this.config.STRIPE_WEBHOOK_SECRET)
      throw new ServiceUnavailableException(PaymentMessages.notConfigured);
    const event = Stripe.webhooks.constructEvent(rawBody, signature, this.config.STRIPE_WEBHOOK_SECRET);
    if (
      (event.type === 'checkout.session.completed' ||
        event.type === 'checkout.session.async_payment_succeeded') &&
      // Setup-mode sessions are age checks (age-assurance reads them back itself): no coins.
      event.data.object.mode !== 'setup'
    ) {
      return { type: 'checkout.completed', eventId: event.id, checkout: toCompleted(event.data.object) };
    }
    return { type: 'ignored', eventId: event.id, stripeType: event.type };
  }

  private client(): Stripe {
    if (!this.stripe) throw new ServiceUnavailableException(PaymentMessages.notConfigured);
    return this.stripe;
  }
}

function toCompleted(session: Stripe.Checkout.Session): CompletedCheckout {
  return {
    sessionId: session.id,
    userId: session.metadata?.userId ?? session.client_reference_id ?? '',
    packs: Number(session.metadata?.packs ?? 0),
    customerId: typeof session.customer === 'string' ? session.customer : session.customer?.id,
    paid: session.payment_status === 'paid' || session.payment_status === 'no_payment_required',
  };
}

/** Client options: another API address (stripe-mock) when STRIPE_API_URL is set. */
export function stripeOptions(config: AppConfig): Stripe.StripeConfig {
  if (!config.STRIPE_API_URL) return {};
  const url = new URL(config.STRIPE_API_URL);
  return {
    host: url.hostname,
    port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
    protocol: url.protocol === 'https:' ? 'https' : 'http',
    maxNetworkRetries: 0,
  };
}
