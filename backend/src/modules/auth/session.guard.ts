import {
  CanActivate,
  ExecutionContext,
  ForbiddenException,
  Injectable,
  UnauthorizedException,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { Messages, type Role } from '@studio/contracts';
import type { SessionAccount } from './account-directory';
import { PUBLIC_KEY, ROLES_KEY } from './auth.decorators';
import type { AuthUser } from './auth-user';
import { LiveSessions } from './live-sessions';

/** The account the session guard read for this request (balance included), for later guards. */
const accountOfRequest = new WeakMap<Request, SessionAccount>();

/** The caller's account as read at the start of this request; undefined without a session. */
export function sessionAccount(req: Request): SessionAccount | undefined {
  return accountOfRequest.get(req);
}

/**
 * Global guard: every route needs a live session unless marked @Public(). The account is read on
 * each call, so a deleted account or a changed role takes effect at once.
 */
@Injectable()
export class SessionGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly sessions: LiveSessions,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const targets = [context.getHandler(), context.getClass()];
    const req = context.switchToHttp().getRequest<Request & { user?: AuthUser }>();
    const isPublic = this.reflector.getAllAndOverride<boolean>(PUBLIC_KEY, targets);

    const account = await this.sessions.accountOf(req.session);
    if (account) {
      req.user = { id: account.id, username: account.username, role: account.role };
      accountOfRequest.set(req, account);
    }
    if (isPublic) return true;
    if (!account) throw new UnauthorizedException(Messages.needLogin);

    const roles = this.reflector.getAllAndOverride<Role[] | undefined>(ROLES_KEY, targets);
    if (roles && !roles.includes(account.role)) throw new ForbiddenException(Messages.forbidden);
    return true;
  }
}
