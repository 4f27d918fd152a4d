import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import type Redis from 'ioredis';
import Stripe from 'stripe';
import { PACK_PRICE_CENTS, PaymentMessages } from '@studio/contracts';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { REDIS } from '../../infrastructure/redis.module';
import type { AuthUser } from '../auth';

/** The test page keeps a checkout this long (Stripe's own sessions expire after 24 hours). */
const TEST_CHECKOUT_TTL_SECONDS = 86_400;

interface TestCheckoutRecord {
  userId: string;
  username: string;
  packs: number;
}

/**
 * Local test payments (STRIPE_TEST_CHECKOUT): the session is created at the stand-in (stripe-mock),
 * which neither shows a payment page nor sends webhooks. This keeps what the checkout was for, so
 * the site's own test page can stand in for Stripe's page, and its Pay button for Stripe's webhook.
 */
@Injectable()
export class TestCheckoutSessions {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  get enabled(): boolean {
    return this.config.STRIPE_TEST_CHECKOUT;
  }

  private key(sessionId: string): string {
    return `${this.config.REDIS_PREFIX}:test-checkout:${sessionId}`;
  }

  /** Records a checkout made at the stand-in; returns the address of the test page for it. */
  async remember(sessionId: string, record: TestCheckoutRecord, base: string): Promise<string> {
    await this.redis.set(this.key(sessionId), JSON.stringify(record), 'EX', TEST_CHECKOUT_TTL_SECONDS);
    return `${base}/stripe/test-checkout/${sessionId}`;
  }

  /** The caller's own test checkout; 404 for an unknown id, another user's, or with the mode off. */
  async ownedBy(user: AuthUser, sessionId: string): Promise<TestCheckoutRecord> {
    const raw = this.enabled ? await this.redis.get(this.key(sessionId)) : null;
    const record = raw ? (JSON.parse(raw) as TestCheckoutRecord) : null;
    if (!record || record.userId !== user.id) throw new NotFoundException(PaymentMessages.checkoutNotFound);
    return record;
  }

  /**
   * The event Stripe sends when such a checkout is paid, signed with the webhook secret: it goes
   * through the same verification and crediting as a real one.
   */
  signedCompletion(sessionId: string, record: TestCheckoutRecord): { payload: Buffer; signature: string } {
    const payload = JSON.stringify({
      id: `evt_test_${sessionId}`,
      object: 'event',
      type: 'checkout.session.completed',
      livemode: false,
      data: {
        object: {
          id: sessionId,
          object: 'checkout.session',
          mode: 'payment',
          livemode: false,
          payment_status: 'paid',
          status: 'complete',
          client_reference_id: record.userId,
          amount_total: record.packs * PACK_PRICE_CENTS,
          currency: 'usd',
          metadata: { userId: record.userId, username: record.username, packs: String(record.packs) },
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
