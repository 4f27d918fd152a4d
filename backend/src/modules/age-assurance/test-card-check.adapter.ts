import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import type Redis from 'ioredis';
import { AgeAssuranceMessages, TEST_CARDS, type CardFunding } from '@studio/contracts';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { REDIS } from '../../infrastructure/redis.module';
import type { CardCheckInput, InspectedCardCheck } from './card-check.port';
import { StripeCardCheck } from './stripe-card-check.adapter';

/** The test page keeps a check this long (Stripe's own sessions expire after 24 hours). */
const TEST_CHECK_TTL_SECONDS = 86_400;

/** Stripe's test payment methods for its published test card numbers (https://docs.stripe.com/testing). */
const TEST_PAYMENT_METHODS: Record<string, string> = {
  '4242424242424242': 'pm_card_visa',
  '5555555555554444': 'pm_card_mastercard',
  '4000056655665556': 'pm_card_visa_debit',
  '5200828282828210': 'pm_card_mastercard_debit',
  '5105105105105100': 'pm_card_mastercard_prepaid',
};

interface TestCheckRecord {
  userId: string;
  card?: { funding: CardFunding; paymentMethodId: string };
}

/**
 * Local test mode (STRIPE_TEST_CHECKOUT, as npm start runs it): the session is made at the
 * stand-in (stripe-mock), which has no card page and answers every card with the same fixture.
 * The site's own test page stands in for Stripe's page: it takes one of Stripe's test card
 * numbers, and the check then sees that card's funding as Stripe would report it.
 */
@Injectable()
export class TestCardCheck extends StripeCardCheck {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
  ) {
    super(config);
  }

  private key(sessionId: string): string {
    return `${this.config.REDIS_PREFIX}:test-card-check:${sessionId}`;
  }

  override async start(input: CardCheckInput, base: string): Promise<{ id: string; url: string }> {
    const session = await super.start(input);
    const record: TestCheckRecord = { userId: input.userId };
    await this.redis.set(this.key(session.id), JSON.stringify(record), 'EX', TEST_CHECK_TTL_SECONDS);
    return { id: session.id, url: `${base}/stripe/test-age-check/${session.id}` };
  }

  /** The test page's card: one of Stripe's test numbers, for the caller's own check. */
  async enterCard(userId: string, sessionId: string, cardNumber: string): Promise<void> {
    const record = await this.record(sessionId);
    if (!record || record.userId !== userId) throw new NotFoundException(AgeAssuranceMessages.checkNotFound);
    const number = cardNumber.replace(/\s+/g, '');
    const card = TEST_CARDS.find((known) => known.number === number);
    if (!card) throw new NotFoundException(AgeAssuranceMessages.unknownTestCard);
    const entered: TestCheckRecord = {
      ...record,
      card: { funding: card.funding, paymentMethodId: TEST_PAYMENT_METHODS[number] },
    };
    await this.redis.set(this.key(sessionId), JSON.stringify(entered), 'EX', TEST_CHECK_TTL_SECONDS);
  }

  override async inspect(sessionId: string): Promise<InspectedCardCheck | null> {
    const record = await this.record(sessionId);
    if (!record) return null;
    return {
      userId: record.userId,
      confirmed: !!record.card,
      funding: record.card?.funding ?? 'unknown',
      reference: sessionId,
      paymentMethodId: record.card?.paymentMethodId,
    };
  }

  /** Whether the session is one of this test page's (the page asks before showing the form). */
  async ownedBy(userId: string, sessionId: string): Promise<boolean> {
    return (await this.record(sessionId))?.userId === userId;
  }

  private async record(sessionId: string): Promise<TestCheckRecord | null> {
    const raw = await this.redis.get(this.key(sessionId));
    return raw ? (JSON.parse(raw) as TestCheckRecord) : null;
  }
}
