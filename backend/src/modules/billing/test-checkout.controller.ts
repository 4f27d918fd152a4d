import { Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  COINS_PER_PACK,
  PACK_PRICE_CENTS,
  PaymentMessages,
  type TestCheckoutDetails,
} from '@studio/contracts';
import { ok } from '../../common/api-response';
import { CurrentUser, type AuthUser, RateLimit } from '../auth';
import { CheckoutSessionParams } from './billing.dto';
import { PaymentsService } from './payments.service';
import { TestCheckoutSessions } from './test-checkout-sessions';

/** Local test payments only (STRIPE_TEST_CHECKOUT): the site's stand-in for Stripe's payment page. */
@ApiTags('billing')
@Controller('stripe/test-checkout')
export class TestCheckoutController {
  constructor(
    private readonly sessions: TestCheckoutSessions,
    private readonly payments: PaymentsService,
  ) {}

  @Get(':sessionId')
  @ApiOperation({ summary: 'Local test payments only: what one of the caller’s test checkouts is for' })
  @ApiOkResponse({ description: '{message, content: {sessionId, packs, coins, amountCents, testMode}}' })
  @ApiNotFoundResponse({ description: PaymentMessages.checkoutNotFound })
  async details(@CurrentUser() user: AuthUser, @Param() params: CheckoutSessionParams) {
    const record = await this.sessions.ownedBy(user, params.sessionId);
    const details: TestCheckoutDetails = {
      sessionId: params.sessionId,
      packs: record.packs,
      coins: record.packs * COINS_PER_PACK,
      amountCents: record.packs * PACK_PRICE_CENTS,
      testMode: true,
    };
    return ok(details);
  }

  @Post(':sessionId/pay')
  @HttpCode(200)
  @RateLimit('checkout')
  @ApiOperation({
    summary: 'Local test payments only: pay a test checkout (delivers the signed completion event)',
  })
  @ApiOkResponse({ description: '{message, content: {credited, alreadyCredited, ignored?}}' })
  @ApiNotFoundResponse({ description: PaymentMessages.checkoutNotFound })
  async pay(@CurrentUser() user: AuthUser, @Param() params: CheckoutSessionParams) {
    const record = await this.sessions.ownedBy(user, params.sessionId);
    const event = this.sessions.signedCompletion(record, user.username);
    // The webhook's own path: signature check, then one ledger credit per session (a second
    // press, or a replay, finds the purchase already applied).
    return ok(await this.payments.handleWebhook(event.payload, event.signature));
  }
}
