import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import Stripe from 'stripe';
import { PACK_PRICE_CENTS, PaymentMessages } from '@studio/contracts';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import type { AuthUser } from '../auth';
import { CheckoutRecords, type CheckoutRecord } from './checkout-records';

/**
 * Local test payments (STRIPE_TEST_CHECKOUT): the session is created at the stand-in (stripe-mock),
 * which neither shows a payment page nor sends webhooks. The site's own test page stands in for
 * Stripe's page, and its Pay button for Stripe's webhook, for the checkouts recorded at creation.
 */
@Injectable()
export class TestCheckoutSessions {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly checkouts: CheckoutRecords,
  ) {}

  get enabled(): boolean {
    return this.config.STRIPE_TEST_CHECKOUT;
  }

  /** The address of the test page for a checkout made at the stand-in. */
  pageOf(sessionId: string, base: string): string {
    return `${base}/stripe/test-checkout/${sessionId}`;
  }

  /** The caller's own test checkout; 404 for an unknown id, another user's, or with the mode off. */
  async ownedBy(user: AuthUser, sessionId: string): Promise<CheckoutRecord> {
    const record = this.enabled ? await this.checkouts.ownedBy(user.id, sessionId) : null;
    if (!record) throw new NotFoundException(PaymentMessages.checkoutNotFound);
    return record;
  }

  /**
   * The event Stripe sends when such a checkout is paid, signed with the webhook secret: it goes
   * through the same verification and crediting as a real one.
   */
  signedCompletion(record: CheckoutRecord, username: string): { payload: Buffer; signature: string } {
    const payload = JSON.stringify({
      id: `evt_test_${record.sessionId}`,
      object: 'event',
      type: 'checkout.session.completed',
      livemode: false,
      data: {
        object: {
          id: record.sessionId,
          object: 'checkout.session',
          mode: 'payment',
          livemode: false,
          payment_status: 'paid',
          status: 'complete',
          client_reference_id: record.userId,
          amount_total: record.packs * PACK_PRICE_CENTS,
          currency: 'usd',
          metadata: { userId: record.userId, username, packs: String(record.packs) },
        },
      },
    });
    const signature = Stripe.webhooks.generateTestHeaderString({
      payload,
      secret: this.config.STRIPE_WEBHOOK_SECRET ?? '',
    });
    return { payload: Buffer.from(payload), signature };
  }
}
