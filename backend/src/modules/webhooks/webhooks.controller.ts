import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import { WebhookMessages } from '@studio/contracts';
import { ok } from '../../common/api-response';
import { CurrentUser, RateLimit, type AuthUser } from '../auth';
import {
  CreateWebhookDto,
  DeliveriesQuery,
  DeliveryParams,
  UpdateWebhookDto,
  WebhookParams,
} from './webhooks.dto';
import { WebhooksService } from './webhooks.service';

/**
 * Profile → Account → Webhooks. Signed-in browser sessions only: no route here names a key scope,
 * so an API key (whatever its scopes) can neither register nor see nor replay webhooks — a leaked
 * key must not be able to send the account's events somewhere else.
 */
@ApiTags('webhooks')
@Controller('account/webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Get()
  @ApiOperation({ summary: "The caller's webhook endpoints (never their secrets), newest first" })
  @ApiOkResponse({ description: '{message, content: WebhookEndpointView[]}' })
  async list(@CurrentUser() user: AuthUser) {
    return ok(await this.webhooks.list(user));
  }

  @Get('settings')
  @ApiOperation({
    summary:
      'What an endpoint address may be here: https and public, and on a local install also http:// on this machine',
  })
  @ApiOkResponse({ description: '{message, content: WebhookSettings}' })
  settings() {
    return ok(this.webhooks.settings());
  }

  @Post()
  @HttpCode(201)
  @RateLimit('folders')
  @ApiOperation({
    summary: 'Register a webhook endpoint: its https address and the events it takes',
    description:
      'The signing secret (whsec_…, Standard Webhooks) is in this answer only. The address must be https and resolve to public addresses only.',
  })
  @ApiOkResponse({ description: '{message, content: {endpoint: WebhookEndpointView, secret}}' })
  @ApiBadRequestResponse({ description: 'A missing address, no event or an unknown event' })
  @ApiUnprocessableEntityResponse({
    description: `${WebhookMessages.httpsOnly}; or a private, loopback or link-local address`,
  })
  @ApiConflictResponse({ description: WebhookMessages.tooMany })
  async create(@CurrentUser() user: AuthUser, @Body() dto: CreateWebhookDto) {
    return ok(await this.webhooks.create(user, dto));
  }

  @Get('deliveries')
  @ApiOperation({ summary: 'Recent deliveries (newest first): status, attempts, last answer' })
  @ApiOkResponse({ description: '{message, content: WebhookDeliveryView[]}' })
  @ApiNotFoundResponse({ description: WebhookMessages.notFound })
  async deliveries(@CurrentUser() user: AuthUser, @Query() query: DeliveriesQuery) {
    return ok(await this.webhooks.recentDeliveries(user, query.endpointId));
  }

  @Post('deliveries/:deliveryId/replay')
  @HttpCode(200)
  @RateLimit('folders')
  @ApiOperation({ summary: 'Send a delivered or given-up delivery again (same webhook-id, new signature)' })
  @ApiOkResponse({ description: '{message, content: WebhookDeliveryView}' })
  @ApiNotFoundResponse({ description: WebhookMessages.deliveryNotFound })
  @ApiConflictResponse({ description: `${WebhookMessages.stillPending}; or ${WebhookMessages.endpointOff}` })
  async replay(@CurrentUser() user: AuthUser, @Param() params: DeliveryParams) {
    return ok(await this.webhooks.replay(user, params.deliveryId));
  }

  @Patch(':endpointId')
  @ApiOperation({ summary: 'Switch an endpoint on or off, or change its events' })
  @ApiOkResponse({ description: '{message, content: WebhookEndpointView}' })
  @ApiNotFoundResponse({ description: WebhookMessages.notFound })
  async update(@CurrentUser() user: AuthUser, @Param() params: WebhookParams, @Body() dto: UpdateWebhookDto) {
    return ok(await this.webhooks.update(user, params.endpointId, dto));
  }

  @Delete(':endpointId')
  @HttpCode(200)
  @ApiOperation({ summary: 'Delete an endpoint and its deliveries' })
  @ApiOkResponse({ description: '{message, content: null}' })
  @ApiNotFoundResponse({ description: WebhookMessages.notFound })
  async remove(@CurrentUser() user: AuthUser, @Param() params: WebhookParams) {
    await this.webhooks.remove(user, params.endpointId);
    return ok(null);
  }
}
