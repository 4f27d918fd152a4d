import {
  BadRequestException,
  ForbiddenException,
  Inject,
  Injectable,
  Logger,
  NotFoundException,
} from '@nestjs/common';
import {
  AccountMessages,
  COIN_PRODUCT_ID,
  PaymentMessages,
  COINS_PER_PACK,
  PACKS_MAX,
  PACKS_MIN,
  clampPacks,
  plural,
  type CheckoutOutcome,
} from '@studio/contracts';
import type Redis from 'ioredis';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { REDIS } from '../../infrastructure/redis.module';
import { AccountsRepository } from '../accounts';
import { assertActingAs, type AuthUser } from '../auth';
import { LedgerService } from './ledger.service';
import { PaymentsPort, type VerifiedPaymentEvent } from './payments.port';
import { TestCheckoutSessions } from './test-checkout-sessions';

export const PAYMENT_PROVIDER_ACTOR = { username: 'stripe' };

/** The ledger key of a checkout's purchase: one credit per Stripe session, however often it is told. */
const purchaseKey = (sessionId: string) => `stripe-checkout:${sessionId}`;

/** The Redis key saying a checkout session was started by this user here (tests stage one with it). */
export const checkoutOwnerKey = (prefix: string, userId: string, sessionId: string) =>
  `${prefix}:checkout-owner:{${userId}}:${sessionId}`;

/** Stripe ends an open checkout session after at most 24 hours; its owner is kept a while longer. */
const CHECKOUT_OWNER_TTL_SECONDS = 3 * 86_400;

/** Buying coins: checkout, crediting on the provider's word (webhook), the billing portal. */
@Injectable()
export class PaymentsService {
  private readonly logger = new Logger(PaymentsService.name);

  constructor(
    private readonly payments: PaymentsPort,
    private readonly ledger: LedgerService,
    private readonly accounts: AccountsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly testCheckout: TestCheckoutSessions,
  ) {}

  /** Marks a checkout session as the user's own (per user, so one id can never name another's). */
  private ownerKey(userId: string, sessionId: string): string {
    return checkoutOwnerKey(this.config.REDIS_PREFIX, userId, sessionId);
  }

  get configured(): boolean {
    return this.payments.configured;
  }

  async startCheckout(
    user: AuthUser,
    coinId: string,
    requestedPacks: number,
    origin: string,
  ): Promise<string> {
    if (coinId !== COIN_PRODUCT_ID) throw new BadRequestException(`Unknown coin product: ${coinId}`);
    const packs = clampPacks(requestedPacks);
    const account = await this.accounts.findById(user.id);
    // Card payments only from a verified address (the link mailed at registration); a server
    // without Stripe says that first (503 from the adapter).
    if (this.payments.configured && !account?.emailVerified) {
      throw new ForbiddenException(AccountMessages.verifyEmailFirst);
    }
    const base = this.publicUrl(origin);
    const session = await this.payments.createCheckout({
      userId: user.id,
      username: user.username,
      packs,
      customerId: account?.stripeCustomerId,
      successUrl: `${base}/stripe/success/{CHECKOUT_SESSION_ID}`,
      cancelUrl: `${base}/stripe/canceled`,
    });
    await this.redis.set(this.ownerKey(user.id, session.id), '1', 'EX', CHECKOUT_OWNER_TTL_SECONDS);
    if (this.testCheckout.enabled) {
      // Local test payments: the stand-in has no payment page; the site's test page plays it.
      return this.testCheckout.remember(
        session.id,
        { userId: user.id, username: user.username, packs },
        base,
      );
    }
    return session.url;
  }

  async portal(
    user: AuthUser,
    claimedUsername: string | undefined,
    sessionId: string | undefined,
    origin: string,
  ): Promise<string> {
    assertActingAs(user, claimedUsername);
    const account = await this.accounts.findById(user.id);
    let customer = account?.stripeCustomerId ?? null;
    if (!customer && sessionId) customer = await this.payments.customerOfCheckout(sessionId, user.id);
    if (!customer) throw new NotFoundException('No billing account yet: buy coins first.');
    return this.payments.createPortal(customer, `${this.publicUrl(origin)}/profile`);
  }

  /** Applies a verified provider event. Replays and reorderings credit exactly once. */
  async handleWebhook(
    rawBody: Buffer | undefined,
    signature: string | undefined,
  ): Promise<{ credited: number }> {
    if (!rawBody || !signature) throw new BadRequestException('Missing signature');
    let event: VerifiedPaymentEvent;
    try {
      event = this.payments.verifyWebhook(rawBody, signature);
    } catch (err) {
      if ((err as { status?: number }).status === 503) throw err;
      throw new BadRequestException('Invalid signature');
    }
    if (event.type !== 'checkout.completed') return { credited: 0 };
    const { checkout } = event;
    if (!checkout.paid) return { credited: 0 }; // async payment: credited on async_payment_succeeded
    const packs = checkout.packs;
    if (!Number.isInteger(packs) || packs < PACKS_MIN || packs > PACKS_MAX) {
      this.logger.error(`checkout ${checkout.sessionId} has an invalid pack count ${packs}`);
      return { credited: 0 };
    }
    const account = await this.accounts.findById(checkout.userId);
    if (!account) {
      this.logger.error(`checkout ${checkout.sessionId} names an unknown user ${checkout.userId}`);
      return { credited: 0 };
    }
    if (checkout.customerId && !account.stripeCustomerId) {
      await this.accounts.setStripeCustomer(account.id, checkout.customerId);
    }
    const coins = packs * COINS_PER_PACK;
    const outcome = await this.ledger.credit({
      key: purchaseKey(checkout.sessionId),
      userId: account.id,
      username: account.username,
      kind: 'purchase',
      amount: coins,
      reason: `Bought ${plural(packs, 'pack')} of ${COINS_PER_PACK} coins`,
      actor: PAYMENT_PROVIDER_ACTOR,
    });
    return { credited: outcome.ok ? coins : 0 };
  }

  /**
   * What one of the caller's checkouts has credited so far (null until its webhook lands). The
   * success page asks on arrival, since the webhook often lands before the browser is back.
   */
  /**
   * Only for a session the caller started here (or one that credited them): an unknown id, or
   * another user's, is 404, the same answer for both, so nothing is learnt about other sessions.
   */
  async checkoutOutcome(user: AuthUser, sessionId: string): Promise<CheckoutOutcome> {
    const purchase = await this.ledger.appliedEntry(user.id, purchaseKey(sessionId));
    if (purchase) return { sessionId, credited: purchase.amount };
    if (!(await this.redis.exists(this.ownerKey(user.id, sessionId)))) {
      throw new NotFoundException(PaymentMessages.checkoutNotFound);
    }
    return { sessionId, credited: null };
  }

  private publicUrl(origin: string): string {
    return (this.config.PUBLIC_URL ?? origin).replace(/\/$/, '');
  }
}
