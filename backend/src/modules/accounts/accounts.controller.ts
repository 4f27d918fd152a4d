import { Body, Controller, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Messages } from '@studio/contracts';
import { ok } from '../../common/api-response';
import { CurrentUser, Public, type AuthUser, RateLimit, SessionRevoker, SESSION_COOKIE } from '../auth';
import { USER_AGENT_MAX } from './account-sessions';
import { LoginDto, RegisterDto } from './accounts.dto';
import { AccountsService, toLoginContent } from './accounts.service';

@ApiTags('accounts')
@Controller()
export class AccountsController {
  constructor(
    private readonly accounts: AccountsService,
    private readonly sessions: SessionRevoker,
  ) {}

  @Post('register')
  @HttpCode(200)
  @Public()
  @RateLimit('auth')
  @ApiOperation({ summary: 'Create an account (18+ confirmation required)' })
  @ApiOkResponse({ description: "{message: 'success', content: 'Registered!'}" })
  @ApiBadRequestResponse({ description: "'Missing fields!' or what is wrong with a field" })
  @ApiConflictResponse({ description: "'Account already exists' (the user name; a taken email answers 200)" })
  async register(@Body() dto: RegisterDto) {
    await this.accounts.register(dto);
    return ok(Messages.registered);
  }

  @Post('login')
  @HttpCode(200)
  @Public()
  @RateLimit('auth')
  @ApiOperation({ summary: 'Start a session (httpOnly cookie)' })
  @ApiOkResponse({ description: '{message, content: {username, verified, role}}' })
  @ApiUnauthorizedResponse({ description: 'Wrong username or password' })
  async login(@Body() dto: LoginDto, @Req() req: Request) {
    const account = await this.accounts.login(dto, { ip: req.ip });
    // A fresh session id on login: a cookie planted before login is worth nothing after it.
    await new Promise<void>((resolve, reject) =>
      req.session.regenerate((err) => (err ? reject(err) : resolve())),
    );
    req.session.userId = account.id;
    // The version of the password just checked: if it changes before this session is stored,
    // the session guard refuses it (revocation may have read the session list before).
    req.session.credentials = account.credentialsVersion;
    req.session.userAgent = req.get('user-agent')?.slice(0, USER_AGENT_MAX);
    // Stored while listed for ending (see remember): never a live session a role change,
    // a password reset or "log out everywhere" cannot find.
    await this.sessions.remember(
      account.id,
      req.sessionID,
      () =>
        new Promise<void>((resolve, reject) => req.session.save((err) => (err ? reject(err) : resolve()))),
    );
    return ok(toLoginContent(account));
  }

  @Post('logout')
  @HttpCode(200)
  @ApiOperation({ summary: 'End the session (its open sockets are closed too)' })
  @ApiOkResponse({ description: "{message: 'success', content: 'Logged out.'}" })
  async logout(
    @CurrentUser() user: AuthUser,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ) {
    await this.accounts.logout(user);
    const sessionId = req.sessionID;
    await new Promise<void>((resolve, reject) =>
      req.session.destroy((err) => (err ? reject(err) : resolve())),
    );
    await this.sessions.endSession(user.id, sessionId);
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
}
