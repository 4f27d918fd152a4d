import RedisStore from 'connect-redis';
import type { RequestHandler } from 'express';
import session from 'express-session';
import type Redis from 'ioredis';
import type { AppConfig } from '../../config/app-config';

declare module 'express-session' {
  interface SessionData {
    userId: string;
    /** The account's credentialsVersion when this session logged in (see sessionIsCurrent). */
    credentials?: number;
  }
}

export const SESSION_COOKIE = 'studio.sid';
export const SESSION_MIDDLEWARE = Symbol('SESSION_MIDDLEWARE');

/** Where a session lives in Redis (connect-redis writes it under this key). */
export const sessionStorePrefix = (config: AppConfig) => `${config.REDIS_PREFIX}:sess:`;
export const sessionStoreKey = (config: AppConfig, sessionId: string) =>
  `${sessionStorePrefix(config)}${sessionId}`;

/**
 * Whether a session is still worth its account: made with the account's current password. A
 * session from before the versions existed counts as version 0.
 */
export const sessionIsCurrent = (
  session: { credentials?: number } | undefined,
  account: { credentialsVersion: number },
) => (session?.credentials ?? 0) === account.credentialsVersion;

/**
 * Sessions live in Redis so that every API instance accepts them; the browser holds only an
 * httpOnly, SameSite=Lax cookie. The same middleware authenticates the socket handshake.
 */
export function createSessionMiddleware(config: AppConfig, redis: Redis): RequestHandler {
  return session({
    name: SESSION_COOKIE,
    secret: config.SESSION_SECRET,
    store: new RedisStore({ client: redis, prefix: sessionStorePrefix(config) }),
    resave: false,
    saveUninitialized: false,
    rolling: true,
    proxy: config.COOKIE_SECURE,
    cookie: {
      httpOnly: true,
      sameSite: 'lax',
      secure: config.COOKIE_SECURE,
      maxAge: config.SESSION_TTL_HOURS * 3600 * 1000,
    },
  });
}
