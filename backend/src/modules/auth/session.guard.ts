import {
  CanActivate,
  ExecutionContext,
  ForbiddenException,
  Inject,
  Injectable,
  Optional,
  UnauthorizedException,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { AccountMessages, ApiKeyMessages, Messages, type ApiKeyScope, type Role } from '@studio/contracts';
import { ACCOUNT_DIRECTORY, type AccountDirectory, type SessionAccount } from './account-directory';
import { API_KEY_DIRECTORY, type ApiKeyCaller, type ApiKeyDirectory } from './api-key-directory';
import { KEY_SCOPE_KEY, PUBLIC_KEY, ROLES_KEY } from './auth.decorators';
import type { AuthUser } from './auth-user';
import { LiveSessions } from './live-sessions';

/** The account the session guard read for this request (balance included), for later guards. */
const accountOfRequest = new WeakMap<Request, SessionAccount>();
/** The API key a request came with, once found live. */
const keyOfRequest = new WeakMap<Request, ApiKeyCaller>();

/** The caller's account as read at the start of this request; undefined without a session. */
export function sessionAccount(req: Request): SessionAccount | undefined {
  return accountOfRequest.get(req);
}

/** The request's live API key, if it came with one (rate limits count per key). */
export function apiKeyOf(req: Request): ApiKeyCaller | undefined {
  return keyOfRequest.get(req);
}

/** The secret of `Authorization: Bearer <secret>`; undefined without that header. */
export function bearerSecret(req: Request): string | undefined {
  const header = req.get('authorization');
  if (header === undefined) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : '';
}

/**
 * Global guard: every route needs a live session unless marked @Public(). The account is read on
 * each call, so a deleted account or a changed role takes effect at once. A request with
 * `Authorization: Bearer` is judged by its API key alone (never by a cookie beside it): the key
 * must be live, the route must name the key's scope (@KeyScope), and the key acts as a user.
 */
@Injectable()
export class SessionGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly sessions: LiveSessions,
    @Inject(ACCOUNT_DIRECTORY) private readonly accounts: AccountDirectory,
    @Optional() @Inject(API_KEY_DIRECTORY) private readonly keys?: ApiKeyDirectory,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const targets = [context.getHandler(), context.getClass()];
    const req = context.switchToHttp().getRequest<Request & { user?: AuthUser }>();
    const isPublic = this.reflector.getAllAndOverride<boolean>(PUBLIC_KEY, targets);
    const roles = this.reflector.getAllAndOverride<Role[] | undefined>(ROLES_KEY, targets);

    const secret = bearerSecret(req);
    if (secret !== undefined) {
      if (isPublic) return true;
      return this.admitKey(req, secret, roles, this.reflector.getAllAndOverride(KEY_SCOPE_KEY, targets));
    }

    const account = await this.sessions.accountOf(req.session);
    if (account) {
      req.user = { id: account.id, username: account.username, role: account.role };
      accountOfRequest.set(req, account);
    }
    if (isPublic) return true;
    if (!account) throw new UnauthorizedException(Messages.needLogin);

    if (roles && !roles.includes(account.role)) throw new ForbiddenException(Messages.forbidden);
    return true;
  }

  private async admitKey(
    req: Request & { user?: AuthUser },
    secret: string,
    roles: Role[] | undefined,
    scope: ApiKeyScope | undefined,
  ): Promise<boolean> {
    const key = secret && this.keys ? await this.keys.resolve(secret) : null;
    const account = key ? await this.accounts.findById(key.userId) : null;
    const current =
      key?.credentialsVersion === undefined || key.credentialsVersion === account?.credentialsVersion;
    if (!key || !account || !current) throw new UnauthorizedException(ApiKeyMessages.invalid);
    // A suspended account's keys stop working with it (its sessions ended when it was suspended).
    if (account.suspended) throw new ForbiddenException(AccountMessages.suspended);
    // Staff powers never travel in a key: it acts as a plain user whatever the account's role.
    const asUser: SessionAccount = { ...account, role: 'user' };
    req.user = {
      id: account.id,
      username: account.username,
      role: 'user',
      apiKey: { id: key.keyId, monthlyCap: key.monthlyCap },
    };
    accountOfRequest.set(req, asUser);
    keyOfRequest.set(req, key);
    if (!scope || !key.scopes.includes(scope)) throw new ForbiddenException(ApiKeyMessages.scope(scope));
    if (roles && !roles.includes('user')) throw new ForbiddenException(Messages.forbidden);
    return true;
  }
}
