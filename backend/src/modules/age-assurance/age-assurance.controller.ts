import { Body, Controller, Get, HttpCode, NotFoundException, Param, Post, Req } from '@nestjs/common';
import {
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Request } from 'express';
import { AgeAssuranceMessages, SAFETY_REASONS } from '@studio/contracts';
import { ok } from '../../common/api-response';
import { CurrentUser, RateLimit, Roles, type AuthUser } from '../auth';
import { AgeAssuranceService } from './age-assurance.service';
import { CardCheckParams, ManualAgeCheckDto, StaffUsernameParams, TestCardDto } from './age-assurance.dto';
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
