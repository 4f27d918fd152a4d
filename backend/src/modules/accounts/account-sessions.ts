import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import Bowser from 'bowser';
import type Redis from 'ioredis';
import { createHash } from 'node:crypto';
import { AccountMessages, type SessionView } from '@studio/contracts';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { REDIS } from '../../infrastructure/redis.module';
import { type AuthUser, SessionRevoker, sessionStoreKey } from '../auth';

declare module 'express-session' {
  interface SessionData {
    /** The browser's User-Agent at login (cut to 512 characters), for the list of sessions. */
    userAgent?: string;
  }
}

export const USER_AGENT_MAX = 512;

/**
 * The public handle of a session: its id is the secret the cookie carries, so the list shows a
 * hash of it instead, and ending one looks the handle up among the caller's own sessions only.
 */
const handleOf = (sessionId: string) =>
  createHash('sha256').update(sessionId).digest('base64url').slice(0, 22);

/** "Chrome 120 on Linux", from the user agent (bowser, the parser the AWS SDK already ships). */
export function describeDevice(userAgent: string | undefined): string {
  if (!userAgent) return 'Unknown device';
  const parsed = Bowser.parse(userAgent);
  const browser = [parsed.browser.name, parsed.browser.version?.split('.')[0]].filter(Boolean).join(' ');
  const system = parsed.os.name ?? '';
  if (!browser && !system) return userAgent.slice(0, 60);
  return [browser || 'Unknown browser', system && `on ${system}`].filter(Boolean).join(' ');
}

/** The caller's login sessions: listed, ended one by one, or all but this one. */
@Injectable()
export class AccountSessions {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly revoker: SessionRevoker,
  ) {}

  /**
   * Each listed session that still exists: device from its stored user agent, the login time from
   * the revoker's index, and the last use from its remaining lifetime (sessions are rolling: every
   * request renews the full SESSION_TTL_HOURS, so what is missing of it has passed since).
   */
  async list(user: AuthUser, currentSessionId: string): Promise<SessionView[]> {
    const listed = await this.revoker.sessionsOf(user.id);
    if (!listed.length) return [];
    const reads = this.redis.pipeline();
    for (const { sessionId } of listed) {
      reads.get(sessionStoreKey(this.config, sessionId));
      reads.pttl(sessionStoreKey(this.config, sessionId));
    }
    const answers = (await reads.exec()) ?? [];
    const lifetimeMs = this.config.SESSION_TTL_HOURS * 3600_000;
    const now = Date.now();
    const views: SessionView[] = [];
    listed.forEach(({ sessionId, startedAt }, i) => {
      const raw = answers[2 * i]?.[1] as string | null;
      const ttl = Number(answers[2 * i + 1]?.[1] ?? -2);
      if (!raw || ttl < 0) return;
      let userAgent: string | undefined;
      try {
        userAgent = (JSON.parse(raw) as { userAgent?: string }).userAgent;
      } catch {
        userAgent = undefined;
      }
      const lastUsed = Math.max(startedAt.getTime(), Math.min(now, now - (lifetimeMs - ttl)));
      views.push({
        id: handleOf(sessionId),
        device: describeDevice(userAgent),
        signedInAt: startedAt.toISOString(),
        lastUsedAt: new Date(lastUsed).toISOString(),
        current: sessionId === currentSessionId,
      });
    });
    return views.sort(
      (a, b) => Number(b.current) - Number(a.current) || b.lastUsedAt.localeCompare(a.lastUsedAt),
    );
  }

  /** Ends one of the caller's sessions by its handle; another user's handle is simply not found. */
  async end(user: AuthUser, handle: string): Promise<void> {
    const listed = await this.revoker.sessionsOf(user.id);
    const match = listed.find(({ sessionId }) => handleOf(sessionId) === handle);
    if (!match) throw new NotFoundException(AccountMessages.sessionNotFound);
    await this.revoker.endSession(user.id, match.sessionId);
  }

  /** "Log out everywhere else": every session but the caller's, and their sockets. */
  async endOthers(user: AuthUser, currentSessionId: string): Promise<number> {
    return this.revoker.endAllSessionsOf(user.id, { except: currentSessionId });
  }
}
