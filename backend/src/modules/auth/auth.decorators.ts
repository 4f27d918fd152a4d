import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiExtension } from '@nestjs/swagger';
import type { ApiKeyScope, Role } from '@studio/contracts';
import type { AuthUser } from './auth-user';

export const PUBLIC_KEY = 'auth:public';
export const ROLES_KEY = 'auth:roles';
export const KEY_SCOPE_KEY = 'auth:key-scope';

/** The route needs no session (register, login, health, the docs). */
export const Public = () => SetMetadata(PUBLIC_KEY, true);

/** Only these roles may call the route; everyone else gets 403. */
export const Roles = (...roles: Role[]) => SetMetadata(ROLES_KEY, roles);

/**
 * A personal API key with this scope may call the route. Routes without it refuse every key
 * (403): the account, payments and staff actions are reachable only from a signed-in browser.
 */
export const KeyScope = (scope: ApiKeyScope) =>
  applyDecorators(
    SetMetadata(KEY_SCOPE_KEY, scope),
    // The OpenAPI document marks what a key may call, and with which scope.
    ApiBearerAuth('api-key'),
    ApiExtension('x-api-key-scope', scope),
  );

/** The signed-in user, resolved from the session by the SessionGuard. */
export const CurrentUser = createParamDecorator((_data: unknown, ctx: ExecutionContext): AuthUser => {
  return ctx.switchToHttp().getRequest().user;
});
