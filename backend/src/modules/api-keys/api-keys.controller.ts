import { Body, Controller, Delete, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
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
import { ApiKeyMessages } from '@studio/contracts';
import { ok } from '../../common/api-response';
import { CurrentUser, RateLimit, sessionAccount, type AuthUser } from '../auth';
import { ApiKeyParams, CreateApiKeyDto } from './api-keys.dto';
import { ApiKeysService } from './api-keys.service';

/**
 * Profile → Account → API keys. Signed-in browser sessions only: no route here names a key scope,
 * so a key can neither make nor see nor revoke keys.
 */
@ApiTags('api-keys')
@Controller('account/api-keys')
export class ApiKeysController {
  constructor(private readonly keys: ApiKeysService) {}

  @Get()
  @ApiOperation({ summary: "The caller's API keys (never their secrets), live first" })
  @ApiOkResponse({ description: '{message, content: ApiKeyView[]}' })
  async list(@CurrentUser() user: AuthUser) {
    return ok(await this.keys.list(user));
  }

  @Post()
  @HttpCode(201)
  @RateLimit('folders')
  @ApiOperation({
    summary: 'Make an API key: name, scopes (read, tools, folders), optional monthly spending cap',
    description: 'The secret is in this answer only; the server keeps a hash of it.',
  })
  @ApiOkResponse({ description: '{message, content: {key: ApiKeyView, secret}}' })
  @ApiBadRequestResponse({ description: 'A missing name, no scope, an unknown scope or a bad cap' })
  @ApiForbiddenResponse({ description: ApiKeyMessages.staffNoKeys })
  @ApiConflictResponse({ description: ApiKeyMessages.tooMany })
  async create(@CurrentUser() user: AuthUser, @Body() dto: CreateApiKeyDto, @Req() req: Request) {
    const credentialsVersion = sessionAccount(req)?.credentialsVersion ?? 0;
    return ok(await this.keys.create(user, credentialsVersion, dto));
  }

  @Delete(':keyId')
  @HttpCode(200)
  @ApiOperation({ summary: 'Revoke one of your keys: the next request with it is refused' })
  @ApiOkResponse({ description: '{message, content: ApiKeyView}' })
  @ApiNotFoundResponse({ description: ApiKeyMessages.notFound })
  async revoke(@CurrentUser() user: AuthUser, @Param() params: ApiKeyParams) {
    return ok(await this.keys.revoke(user, params.keyId));
  }
}
