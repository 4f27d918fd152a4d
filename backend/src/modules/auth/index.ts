/**
 * The auth module's face: sessions (cookie, guard, revoker), who is calling (AuthUser and the
 * decorators), rate limits and the same-origin guard.
 *
 * Low in the tree, below accounts and realtime that both depend on it: it reads accounts through
 * its own port, ACCOUNT_DIRECTORY (which the accounts module provides), and when it ends sessions
 * it announces SessionEvents.ended in-process, on which realtime closes their sockets. So it
 * imports no module but events.
 */
export type { AccountDirectory, SessionAccount } from './account-directory';
export { ACCOUNT_DIRECTORY } from './account-directory';
export type { AuthUser } from './auth-user';
export { assertActingAs } from './auth-user';
export type { ApiKeyCaller, ApiKeyDirectory } from './api-key-directory';
export { API_KEY_DIRECTORY } from './api-key-directory';
export { CurrentUser, KeyScope, Public, Roles } from './auth.decorators';
export { AuthModule, RateLimitModule } from './auth.module';
export { LiveSessions } from './live-sessions';
export type { RateBudget } from './rate-limit';
export { RateLimit } from './rate-limit';
export { SameOriginGuard } from './same-origin.guard';
export { SESSION_COOKIE, SESSION_MIDDLEWARE, sessionStoreKey } from './session';
export { SessionEndListener } from './session-end.listener';
export type { SessionsEndedPayload } from './session-events';
export { SessionEvents } from './session-events';
export { SessionRevoker, SessionRevokerModule } from './session-revoker';
export { apiKeyOf, sessionAccount } from './session.guard';
