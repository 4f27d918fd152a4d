import { Body, Controller, Delete, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Request } from 'express';
import { AccountMessages } from '@studio/contracts';
import { ok } from '../../common/api-response';
import { CurrentUser, Public, type AuthUser, RateLimit } from '../auth';
import { AccountSecurityService } from './account-security.service';
import { AccountSessions } from './account-sessions';
import {
  ChangePasswordDto,
  ForgotPasswordDto,
  ResetPasswordDto,
  SessionHandleParams,
  TokenDto,
} from './account.dto';

/** Profile → Account: email verification, password, sessions (export and deletion: account-data). */
@ApiTags('account')
@Controller()
export class AccountController {
  constructor(
    private readonly security: AccountSecurityService,
    private readonly sessions: AccountSessions,
  ) {}

  @Get('account')
  @ApiOperation({ summary: "The caller's account: name, email and whether the email is verified" })
  @ApiOkResponse({ description: '{message, content: {username, email, emailVerified, createdAt}}' })
  async overview(@CurrentUser() user: AuthUser) {
    return ok(await this.security.overview(user));
  }

  @Post('account/verification')
  @HttpCode(200)
  @RateLimit('auth')
  @ApiOperation({ summary: 'Mail a new verification link to the caller (while the email is unverified)' })
  @ApiOkResponse({ description: `{message, content: '${AccountMessages.verificationSent}'}` })
  async resendVerification(@CurrentUser() user: AuthUser) {
    await this.security.resendVerification(user);
    return ok(AccountMessages.verificationSent);
  }

  @Post('email/verify')
  @HttpCode(200)
  @Public()
  @RateLimit('auth')
  @ApiOperation({ summary: 'Use the one-time token of a verification link' })
  @ApiOkResponse({ description: `{message, content: '${AccountMessages.emailVerified}'}` })
  @ApiBadRequestResponse({ description: AccountMessages.badLink })
  async verifyEmail(@Body() dto: TokenDto, @Req() req: Request) {
    await this.security.verifyEmail(dto.token, req.ip);
    return ok(AccountMessages.emailVerified);
  }

  @Post('password/forgot')
  @HttpCode(200)
  @Public()
  @RateLimit('auth')
  @ApiOperation({ summary: 'Mail a password reset link (30 minutes, once); the same answer for any address' })
  @ApiOkResponse({ description: `{message, content: '${AccountMessages.resetMailSent}'}` })
  forgotPassword(@Body() dto: ForgotPasswordDto) {
    this.security.forgotPassword(dto.email);
    return ok(AccountMessages.resetMailSent);
  }

  @Post('password/reset')
  @HttpCode(200)
  @Public()
  @RateLimit('auth')
  @ApiOperation({
    summary: "Set a new password with a reset link's token; every session of the account ends",
  })
  @ApiOkResponse({ description: `{message, content: '${AccountMessages.passwordReset}'}` })
  @ApiBadRequestResponse({ description: `${AccountMessages.badLink}, or the password is too weak` })
  async resetPassword(@Body() dto: ResetPasswordDto) {
    await this.security.resetPassword(dto.token, dto.password);
    return ok(AccountMessages.passwordReset);
  }

  @Post('account/password')
  @HttpCode(200)
  @RateLimit('auth')
  @ApiOperation({ summary: "Change the caller's password (current one required); other sessions end" })
  @ApiOkResponse({ description: `{message, content: '${AccountMessages.passwordChanged}'}` })
  @ApiBadRequestResponse({ description: `${AccountMessages.wrongPassword}, or the new one is too weak` })
  async changePassword(@CurrentUser() user: AuthUser, @Body() dto: ChangePasswordDto, @Req() req: Request) {
    req.session.credentials = await this.security.changePassword(
      user,
      req.sessionID,
      dto.currentPassword,
      dto.password,
    );
    return ok(AccountMessages.passwordChanged);
  }

  @Get('account/sessions')
  @ApiOperation({ summary: "The caller's login sessions: device, sign-in and last use" })
  @ApiOkResponse({ description: '{message, content: SessionView[]}' })
  async listSessions(@CurrentUser() user: AuthUser, @Req() req: Request) {
    return ok(await this.sessions.list(user, req.sessionID));
  }

  @Post('account/sessions/logout-others')
  @HttpCode(200)
  @ApiOperation({ summary: 'Log out everywhere else: every session of the caller but this one' })
  @ApiOkResponse({ description: `{message, content: '${AccountMessages.sessionsEnded}'}` })
  async endOtherSessions(@CurrentUser() user: AuthUser, @Req() req: Request) {
    await this.sessions.endOthers(user, req.sessionID);
    return ok(AccountMessages.sessionsEnded);
  }

  @Delete('account/sessions/:id')
  @HttpCode(200)
  @ApiOperation({ summary: 'Log out one of the caller’s sessions' })
  @ApiOkResponse({ description: `{message, content: '${AccountMessages.sessionEnded}'}` })
  @ApiNotFoundResponse({ description: AccountMessages.sessionNotFound })
  async endSession(@CurrentUser() user: AuthUser, @Param() params: SessionHandleParams) {
    await this.sessions.end(user, params.id);
    return ok(AccountMessages.sessionEnded);
  }
}
