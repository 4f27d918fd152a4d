import { Body, Controller, Get, HttpCode, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { SkipThrottle, ThrottlerGuard } from '@nestjs/throttler';
import type { Request, Response } from 'express';
import { Messages } from '@studio/contracts';
import { ok } from '../../common/api-response';
import { CurrentUser, Public } from '../auth/auth.decorators';
import type { AuthUser } from '../auth/auth-user';
import { SESSION_COOKIE } from '../auth/session';
import { LoginDto, RegisterDto } from './accounts.dto';
import { AccountsService, toLoginContent } from './accounts.service';

@ApiTags('accounts')
@Controller()
export class AccountsController {
  constructor(private readonly accounts: AccountsService) {}

  @Post('register')
  @HttpCode(200)
  @Public()
  @UseGuards(ThrottlerGuard)
  @SkipThrottle({ jobs: true })
  @ApiOperation({ summary: 'Create an account (18+ confirmation required)' })
  @ApiOkResponse({ description: "{message: 'success', content: 'Registered!'}" })
  @ApiBadRequestResponse({ description: "'Missing fields!' or what is wrong with a field" })
  @ApiConflictResponse({ description: "'Account already exists'" })
  @ApiTooManyRequestsResponse({ description: 'Rate limited' })
  async register(@Body() dto: RegisterDto) {
    await this.accounts.register(dto);
    return ok(Messages.registered);
  }

  @Post('login')
  @HttpCode(200)
  @Public()
  @UseGuards(ThrottlerGuard)
  @SkipThrottle({ jobs: true })
  @ApiOperation({ summary: 'Start a session (httpOnly cookie)' })
  @ApiOkResponse({ description: '{message, content: {username, verified, role}}' })
  @ApiUnauthorizedResponse({ description: 'Wrong username or password' })
  @ApiTooManyRequestsResponse({ description: 'Rate limited' })
  async login(@Body() dto: LoginDto, @Req() req: Request) {
    const account = await this.accounts.login(dto, { ip: req.ip });
    // A fresh session id on login: a cookie planted before login is worth nothing after it.
    await new Promise<void>((resolve, reject) =>
      req.session.regenerate((err) => (err ? reject(err) : resolve())),
    );
    req.session.userId = account.id;
    await new Promise<void>((resolve, reject) => req.session.save((err) => (err ? reject(err) : resolve())));
    return ok(toLoginContent(account));
  }

  @Post('logout')
  @HttpCode(200)
  @ApiOperation({ summary: 'End the session' })
  @ApiOkResponse({ description: "{message: 'success', content: 'Logged out.'}" })
  async logout(
    @CurrentUser() user: AuthUser,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ) {
    await this.accounts.logout(user);
    await new Promise<void>((resolve, reject) =>
      req.session.destroy((err) => (err ? reject(err) : resolve())),
    );
    res.clearCookie(SESSION_COOKIE);
    return ok(Messages.loggedOut);
  }

  @Get('session')
  @ApiOperation({ summary: 'Who is signed in, with balance and badges (session restore)' })
  @ApiOkResponse({ description: '{message, content: {username, verified, early, role, balance}}' })
  @ApiUnauthorizedResponse({ description: 'No session' })
  async session(@CurrentUser() user: AuthUser) {
    return ok(await this.accounts.session(user));
  }

  @Get('getProfile/:account')
  @ApiOperation({ summary: "A profile: everything for one's own, name and badges for anyone else's" })
  @ApiOkResponse({ description: '{message, content: ProfileContent}' })
  async getProfile(@CurrentUser() user: AuthUser, @Param('account') account: string) {
    return ok(await this.accounts.profile(user, account));
  }
}
