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
  plural,
  type CheckoutOutcome,
  type PaymentEventOutcome,
} from '@studio/contracts';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { AccountsRepository } from '../accounts';
import { assertActingAs, type AuthUser } from '../auth';
import { CheckoutRecords } from './checkout-records';
import { LedgerService } from './ledger.service';
import { PaymentsPort, type VerifiedPaymentEvent } from './payments.port';
import { TestCheckoutSessions } from './test-checkout-sessions';

export const PAYMENT_PROVIDER_ACTOR = { username: 'stripe' };

/** The ledger key of a checkout's purchase: one credit per Stripe session, however often it is told. */
const purchaseKey = (sessionId: string) => `stripe-checkout:${sessionId}`;

/** Buying coins: checkout, crediting on the provider's word (webhook), the billing portal. */
@Injectable()
export class PaymentsService {
  private readonly logger = new Logger(PaymentsService.name);

  constructor(
    private readonly payments: PaymentsPort,
    private readonly ledger: LedgerService,
    private readonly accounts: AccountsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly checkouts: CheckoutRecords,
    private readonly testCheckout: TestCheckoutSessions,
  ) {}

  get configured(): boolean {
    return this.payments.configured;
  }

  /** `packs` is already a whole number within PACKS_MIN..PACKS_MAX (CheckoutDto refuses others). */
  async startCheckout(user: AuthUser, coinId: string, packs: number, origin: string): Promise<string> {
    if (coinId !== COIN_PRODUCT_ID) throw new BadRequestException(`Unknown coin product: ${coinId}`);
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
    // Recorded before anyone has the address: the webhook credits only what is recorded here.
    await this.checkouts.record({ sessionId: session.id, userId: user.id, packs });
    // Local test payments: the stand-in has no payment page; the site's test page plays it.
    return this.testCheckout.enabled ? this.testCheckout.pageOf(session.id, base) : session.url;
  }

  async portal(
    user: AuthUser,
    claimedUsername: string | undefined,
    sessionId: string | undefined,
    origin: string,
  ): Promise<string> {
    assertActingAs(user, claimedUsername);
    // Local test payments have no Stripe portal (nothing real was paid): the purchases are in the
    // studio's own credit history, so "Billing" opens that.
    if (this.testCheckout.enabled) return `${this.publicUrl(origin)}/credits`;
    const account = await this.accounts.findById(user.id);
    let customer = account?.stripeCustomerId ?? null;
    if (!customer && sessionId) customer = await this.payments.customerOfCheckout(sessionId, user.id);
    if (!customer) throw new NotFoundException('No billing account yet: buy coins first.');
    return this.payments.createPortal(customer, `${this.publicUrl(origin)}/profile`);
  }

  /**
   * Applies a verified provider event: credits a checkout this server created, to the user and for
   * the packs recorded at checkout, exactly once. Replays and reorderings credit nothing more and
   * say so (`alreadyCredited`).
   */
  async handleWebhook(
    rawBody: Buffer | undefined,
    signature: string | undefined,
  ): Promise<PaymentEventOutcome> {
    if (!rawBody || !signature) throw new BadRequestException('Missing signature');
    let event: VerifiedPaymentEvent;
    try {
      event = this.payments.verifyWebhook(rawBody, signature);
    } catch (err) {
      if ((err as { status?: number }).status === 503) throw err;
      throw new BadRequestException('Invalid signature');
    }
    if (event.type !== 'checkout.completed') return nothing('not_checkout');
    const { checkout } = event;
    // A correctly signed event for a session this server never created credits nothing. It is
    // still answered 200: the signature holds, so it comes from whoever has the secret, and an
    // error would only make Stripe deliver it again for days; the log line is the alarm.
    const record = await this.checkouts.find(checkout.sessionId);
    if (!record) {
      this.logger.warn(
        `signed event ${event.eventId} names checkout ${checkout.sessionId}, not created here`,
      );
      return nothing('unknown_checkout');
    }
    if (!checkout.paid) {
      // An async payment is credited on async_payment_succeeded, which may have come first.
      const purchase = await this.ledger.appliedEntry(record.userId, purchaseKey(record.sessionId));
      return { ...nothing('unpaid'), alreadyCredited: purchase !== null };
    }
    if (checkout.userId !== record.userId || checkout.packs !== record.packs) {
      this.logger.warn(
        `event ${event.eventId} for checkout ${record.sessionId} claims user ${checkout.userId} and ` +
          `${checkout.packs} packs; crediting what was recorded (${record.userId}, ${record.packs})`,
      );
    }
    const account = await this.accounts.findById(record.userId);
    if (!account) {
      this.logger.error(`checkout ${record.sessionId}: its account ${record.userId} no longer exists`);
      return nothing('no_account');
    }
    if (checkout.customerId && !account.stripeCustomerId) {
      await this.accounts.setStripeCustomer(account.id, checkout.customerId);
    }
    const coins = record.packs * COINS_PER_PACK;
    const outcome = await this.ledger.credit({
      key: purchaseKey(record.sessionId),
      userId: account.id,
      username: account.username,
      kind: 'purchase',
      amount: coins,
      reason: `Bought ${plural(record.packs, 'pack')} of ${COINS_PER_PACK} coins`,
      actor: PAYMENT_PROVIDER_ACTOR,
    });
    if (!outcome.ok) return nothing('no_account');
    return outcome.appliedNow
      ? { credited: coins, alreadyCredited: false }
      : { credited: 0, alreadyCredited: true };
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
    if (!(await this.checkouts.ownedBy(user.id, sessionId))) {
      throw new NotFoundException(PaymentMessages.checkoutNotFound);
    }
    return { sessionId, credited: null };
  }

  private publicUrl(origin: string): string {
    return (this.config.PUBLIC_URL ?? origin).replace(/\/$/, '');
  }
}

const nothing = (ignored: NonNullable<PaymentEventOutcome['ignored']>): PaymentEventOutcome => ({
  credited: 0,
  alreadyCredited: false,
  ignored,
});
