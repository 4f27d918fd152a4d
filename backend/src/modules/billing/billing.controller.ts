import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { Request } from 'express';
import { AccountMessages, PaymentMessages, type BillingStatus } from '@studio/contracts';
import { ok } from '../../common/api-response';
import type { RawBodyRequest } from '../../common/body-parsing';
import { CurrentUser, Public, type AuthUser, RateLimit, KeyScope } from '../auth';
import {
  CheckoutDto,
  CheckoutSessionParams,
  HistoryQueryDto,
  PatreonSecretDto,
  PortalDto,
} from './billing.dto';
import { LedgerService } from './ledger.service';
import { PatreonService } from './patreon.service';
import { PaymentsService } from './payments.service';
import { TestCheckoutSessions } from './test-checkout-sessions';
import { WelcomeAllowance } from './welcome-allowance';

const originOf = (req: Request) => `${req.protocol}://${req.get('host')}`;

@ApiTags('billing')
@Controller()
export class BillingController {
  constructor(
    private readonly payments: PaymentsService,
    private readonly ledger: LedgerService,
    private readonly patreon: PatreonService,
    private readonly testCheckout: TestCheckoutSessions,
    private readonly allowance: WelcomeAllowance,
  ) {}

  @Get('billing/status')
  @KeyScope('read')
  @Public()
  @ApiOperation({ summary: 'Whether card payments are configured on this server' })
  @ApiOkResponse({ description: '{message, content: {paymentsConfigured, testMode, welcomeAllowance}}' })
  status() {
    const status: BillingStatus = {
      paymentsConfigured: this.payments.configured,
      testMode: this.testCheckout.enabled,
      welcomeAllowance: this.allowance.coins,
    };
    return ok(status);
  }

  @Post('createCheckoutSession')
  @HttpCode(200)
  @RateLimit('checkout')
  @ApiOperation({ summary: 'Start a Stripe Checkout for coin packs (200 coins for $10 each, 1..50 packs)' })
  @ApiOkResponse({ description: '{message, content: checkout address}' })
  @ApiForbiddenResponse({ description: AccountMessages.verifyEmailFirst })
  @ApiServiceUnavailableResponse({ description: PaymentMessages.notConfigured })
  async createCheckoutSession(@CurrentUser() user: AuthUser, @Body() dto: CheckoutDto, @Req() req: Request) {
    return ok(await this.payments.startCheckout(user, dto.coin_id, dto.coin_amount, originOf(req)));
  }

  @Get('checkout/:sessionId')
  @ApiOperation({
    summary: "What one of the caller's checkouts credited: coins, or null until the webhook lands",
  })
  @ApiOkResponse({ description: '{message, content: {sessionId, credited}}' })
  @ApiBadRequestResponse({ description: 'Not a checkout session id' })
  @ApiNotFoundResponse({ description: `${PaymentMessages.checkoutNotFound}: not one the caller started` })
  async checkoutOutcome(@CurrentUser() user: AuthUser, @Param() params: CheckoutSessionParams) {
    return ok(await this.payments.checkoutOutcome(user, params.sessionId));
  }

  @Post('createPortalSession')
  @HttpCode(200)
  @RateLimit('checkout')
  @ApiOperation({ summary: "Open Stripe's billing portal for the caller's customer" })
  @ApiOkResponse({ description: '{message, content: portal address}' })
  async createPortalSession(@CurrentUser() user: AuthUser, @Body() dto: PortalDto, @Req() req: Request) {
    return ok(await this.payments.portal(user, dto.username, dto.session_id, originOf(req)));
  }

  @Post('stripe/webhook')
  @HttpCode(200)
  @Public()
  @ApiOperation({
    summary: 'Stripe webhook (signature checked on the raw body)',
    description:
      'Credits only a checkout session this server created, to its user and for its recorded packs, once. ' +
      'A replay answers credited: 0, alreadyCredited: true; a signed event for any other session is ' +
      "answered 200 with credited: 0, ignored: 'unknown_checkout' (an error would make Stripe retry it).",
  })
  @ApiOkResponse({ description: '{message, content: {credited, alreadyCredited, ignored?}}' })
  @ApiBadRequestResponse({ description: 'Missing or invalid signature' })
  async webhook(@Req() req: RawBodyRequest, @Headers('stripe-signature') signature?: string) {
    return ok(await this.payments.handleWebhook(req.rawBody, signature));
  }

  @Get('credits/history')
  @KeyScope('read')
  @ApiOperation({ summary: "The caller's credit history, newest first (paged)" })
  @ApiOkResponse({ description: '{message, content: {items, total, page, pageSize}}' })
  async history(@CurrentUser() user: AuthUser, @Query() query: HistoryQueryDto) {
    return ok(await this.ledger.history(user.id, query.page, query.pageSize));
  }

  @Post('patreonSecret')
  @HttpCode(200)
  @RateLimit('patreon')
  @ApiOperation({ summary: 'Redeem a one-time Patreon secret: the caller becomes verified' })
  @ApiOkResponse({ description: "{message: 'success'}" })
  @ApiBadRequestResponse({ description: PaymentMessages.patreonFailed })
  async patreonSecret(@CurrentUser() user: AuthUser, @Body() dto: PatreonSecretDto) {
    await this.patreon.redeem(user, dto.secret, dto.username);
    return ok(PaymentMessages.patreonLinked);
  }
}
