import {
  Body,
  Controller,
  Get,
  Headers,
  HttpCode,
  NotFoundException,
  Param,
  Post,
  Req,
} from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Request } from 'express';
import { AgeAssuranceMessages, SAFETY_REASONS } from '@studio/contracts';
import { ok } from '../../common/api-response';
import type { RawBodyRequest } from '../../common/body-parsing';
import { CurrentUser, Public, RateLimit, Roles, type AuthUser } from '../auth';
import { AgeProviderCheckService } from './age-provider-check.service';
import { AgeAssuranceService } from './age-assurance.service';
import {
  CardCheckParams,
  ManualAgeCheckDto,
  ProviderCheckParams,
  StaffUsernameParams,
  TestCardDto,
} from './age-assurance.dto';
import { CardCheckPort } from './card-check.port';
import { TestCardCheck } from './test-card-check.adapter';

const originOf = (req: Request) => `${req.protocol}://${req.get('host')}`;

@ApiTags('age-assurance')
@Controller('age-assurance')
export class AgeAssuranceController {
  constructor(
    private readonly assurance: AgeAssuranceService,
    private readonly cardCheck: CardCheckPort,
  ) {}

  @Get()
  @ApiOperation({ summary: "The caller's age assurance: required here, assured, how and when" })
  @ApiOkResponse({ description: '{message, content: {required, assured, method?, assuredAt?}}' })
  async status(@CurrentUser() user: AuthUser) {
    return ok(await this.assurance.status(user.id));
  }

  @Post('card')
  @HttpCode(200)
  @RateLimit('checkout')
  @ApiOperation({
    summary: 'Start a credit card age check (Stripe Checkout in setup mode: no charge, the card is not kept)',
  })
  @ApiOkResponse({ description: '{message, content: {sessionId, url}}' })
  async startCard(@CurrentUser() user: AuthUser, @Req() req: Request) {
    return ok(await this.assurance.startCardCheck(user, originOf(req)));
  }

  @Post('card/:sessionId/complete')
  @HttpCode(200)
  @RateLimit('checkout')
  @ApiOperation({
    summary: 'Finish a card check: read back from Stripe; passes only with a credit card',
    description: `403 with reason card_not_credit: "${SAFETY_REASONS.card_not_credit}"`,
  })
  @ApiOkResponse({ description: '{message, content: {required, assured, method, assuredAt}}' })
  @ApiNotFoundResponse({ description: AgeAssuranceMessages.checkNotFound })
  async completeCard(@CurrentUser() user: AuthUser, @Param() params: CardCheckParams) {
    return ok(await this.assurance.completeCardCheck(user, params.sessionId));
  }

  @Post('card/:sessionId/test-card')
  @HttpCode(200)
  @RateLimit('checkout')
  @ApiOperation({
    summary: "Local test mode only: enter one of Stripe's test cards on the site's stand-in page",
  })
  @ApiNotFoundResponse({ description: AgeAssuranceMessages.testModeOnly })
  async enterTestCard(
    @CurrentUser() user: AuthUser,
    @Param() params: CardCheckParams,
    @Body() dto: TestCardDto,
  ) {
    if (!(this.cardCheck instanceof TestCardCheck))
      throw new NotFoundException(AgeAssuranceMessages.testModeOnly);
    await this.cardCheck.enterCard(user.id, params.sessionId, dto.cardNumber);
    return ok(await this.assurance.completeCardCheck(user, params.sessionId));
  }
}

/** The external provider's check (Persona's hosted flow) and its signed webhook. */
@ApiTags('age-assurance')
@Controller('age-assurance')
export class ProviderAgeCheckController {
  constructor(private readonly providerCheck: AgeProviderCheckService) {}

  @Post('provider')
  @HttpCode(200)
  @RateLimit('checkout')
  @ApiOperation({
    summary: "Start an age check at the external provider (Persona's hosted flow: photo ID or face age)",
    description: `503 "${AgeAssuranceMessages.providerNotConfigured}" when no provider is set up`,
  })
  @ApiOkResponse({ description: '{message, content: {reference, url}}: send the user to url' })
  @ApiConflictResponse({ description: AgeAssuranceMessages.alreadyAssured })
  async start(@CurrentUser() user: AuthUser, @Req() req: Request) {
    return ok(await this.providerCheck.start(user, originOf(req)));
  }

  @Post('provider/:reference/complete')
  @HttpCode(200)
  @RateLimit('checkout')
  @ApiOperation({
    summary: 'Back from the provider: the check is read from the provider itself, never from the browser',
    description: `403 with reason age_check_declined: "${SAFETY_REASONS.age_check_declined}"; 409 while not finished`,
  })
  @ApiOkResponse({ description: '{message, content: {required, assured, method, assuredAt}}' })
  @ApiNotFoundResponse({ description: AgeAssuranceMessages.providerCheckNotFound })
  async complete(@CurrentUser() user: AuthUser, @Param() params: ProviderCheckParams) {
    return ok(await this.providerCheck.complete(user, params.reference));
  }

  @Post('persona/webhook')
  @HttpCode(200)
  @Public()
  @ApiOperation({
    summary: "Persona's webhook (Persona-Signature checked on the raw body, 5 minutes' window)",
    description:
      "Settles the named check once from Persona's own record; replays and late events change nothing " +
      "(alreadySettled: true); events for checks not started here are answered 200 with outcome 'ignored'.",
  })
  @ApiOkResponse({ description: '{message, content: {outcome, alreadySettled?, ignored?}}' })
  @ApiBadRequestResponse({
    description: 'Missing or invalid signature, or a signature time outside the window',
  })
  async webhook(@Req() req: RawBodyRequest, @Headers('persona-signature') signature?: string) {
    return ok(await this.providerCheck.handleWebhook(req.rawBody, signature));
  }
}

@ApiTags('support')
@ApiForbiddenResponse({ description: 'Not support staff or admin' })
@Controller('support/users')
export class ManualAgeCheckController {
  constructor(private readonly assurance: AgeAssuranceService) {}

  @Get(':username/age-assurance')
  @Roles('support', 'admin')
  @ApiOperation({ summary: "A user's age assurance (support)" })
  async status(@Param() params: StaffUsernameParams) {
    return ok(await this.assurance.statusOf(params.username));
  }

  @Post(':username/age-assurance')
  @HttpCode(200)
  @Roles('support', 'admin')
  @ApiOperation({
    summary: 'Record a manual age check made outside the studio (support); audited with who and why',
  })
  async record(
    @CurrentUser() actor: AuthUser,
    @Param() params: StaffUsernameParams,
    @Body() dto: ManualAgeCheckDto,
  ) {
    return ok(await this.assurance.recordManualCheck(actor, params.username, dto.reason));
  }
}
