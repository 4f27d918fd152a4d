import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Req,
  Res,
  StreamableFile,
  UseGuards,
} from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiForbiddenResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AccountMessages, Messages } from '@studio/contracts';
import { ok } from '../../common/api-response';
import { CurrentUser, type AuthUser, RateLimit, SameOriginGuard, SESSION_COOKIE, KeyScope } from '../auth';
import { DeleteAccountDto } from './account-data.dto';
import { AccountDataService } from './account-data.service';

/** A profile with its folders; Profile → Account: export and deletion. */
@Controller()
export class AccountDataController {
  constructor(private readonly data: AccountDataService) {}

  @Get('getProfile/:account')
  @KeyScope('read')
  @ApiTags('accounts')
  @ApiOperation({ summary: "A profile: everything for one's own, name and badges for anyone else's" })
  @ApiOkResponse({ description: '{message, content: ProfileContent}' })
  async getProfile(@CurrentUser() user: AuthUser, @Param('account') account: string) {
    return ok(await this.data.profile(user, account));
  }

  @Get('account/export')
  @ApiTags('account')
  @RateLimit('exports')
  // Below RateLimit, so it runs first: a cross-site <img> or link (a sibling port or subdomain
  // rides on the SameSite=Lax cookie) is refused before it can use up the owner's exports.
  @UseGuards(SameOriginGuard)
  @ApiForbiddenResponse({ description: `${Messages.forbidden}: not asked from the studio's own pages` })
  @ApiOperation({ summary: "A zip of the caller's items, credit history and jobs (CSV) and account details" })
  @ApiProduces('application/zip')
  @ApiOkResponse({ description: 'studio-export-<username>.zip' })
  async export(@CurrentUser() user: AuthUser) {
    const stream = await this.data.export(user);
    return new StreamableFile(stream, {
      type: 'application/zip',
      disposition: `attachment; filename="studio-export-${user.username}.zip"`,
    });
  }

  @Delete('account')
  @ApiTags('account')
  @HttpCode(200)
  @RateLimit('auth')
  @ApiOperation({
    summary: 'Delete the account (password required): content removed, ledger kept anonymised, sessions end',
  })
  @ApiOkResponse({ description: `{message, content: '${AccountMessages.accountDeleted}'}` })
  @ApiBadRequestResponse({ description: AccountMessages.wrongPassword })
  async delete(
    @CurrentUser() user: AuthUser,
    @Body() dto: DeleteAccountDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ) {
    await this.data.delete(user, dto.password);
    await new Promise<void>((resolve) => req.session.destroy(() => resolve()));
    res.clearCookie(SESSION_COOKIE);
    return ok(AccountMessages.accountDeleted);
  }
}
