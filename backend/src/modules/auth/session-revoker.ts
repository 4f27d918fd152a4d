import { Global, Inject, Injectable, Module } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import type Redis from 'ioredis';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { REDIS } from '../../infrastructure/redis.module';
import { sessionStoreKey } from './session';
import { SessionEvents, type SessionsEndedPayload } from './session-events';

/**
 * Lists ARGV[1] (scored ARGV[2], kept if listed already) in the index KEYS[1], and drops each
 * listed id ARGV[2 + i] whose session KEYS[1 + i] no longer exists; check and drop are one step.
 */
const RELIST_AND_PRUNE = `
redis.call('ZADD', KEYS[1], 'NX', ARGV[2], ARGV[1])
for i = 2, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 0 then redis.call('ZREM', KEYS[1], ARGV[i + 1]) end
end
`;

/**
 * Ends login sessions: the session in Redis (so its cookie is worth nothing), then announces
 * SessionEvents.ended in-process, on which realtime closes the sockets opened under them (on every
 * API instance, through the Socket.IO Redis adapter). Logout ends one session; a role change or a
 * password reset ends all of a user's sessions.
 *
 * Each user's session ids are kept in a Redis sorted set scored by login time, written at login,
 * so that all of them can be found, and so that an event handled late (role changes arrive through
 * the event queue) ends only the sessions started before it; ids whose session has expired are
 * pruned at the next login (remember).
 */
@Injectable()
export class SessionRevoker {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly emitter: EventEmitter2,
  ) {}

  /**
   * Lists a fresh login session of the user around `store` (which saves it in Redis). It is listed
   * before it is stored, so a process dying in between leaves at most a listed id with no session,
   * never a live session that cannot be ended. Once stored, it is listed again and the ids whose
   * session is gone are dropped, in one atomic step: a concurrent login of the same user may have
   * dropped this one while it was not stored yet, and would otherwise leave it live but unlisted
   * (surviving a password reset, a role change and "log out everywhere").
   */
  async remember(userId: string, sessionId: string, store: () => Promise<void>): Promise<void> {
    const index = this.indexKey(userId);
    await this.redis.zadd(index, Date.now(), sessionId);
    await store();
    const listed = await this.redis.zrange(index, 0, -1);
    await this.redis.eval(
      RELIST_AND_PRUNE,
      1 + listed.length,
      index,
      ...listed.map((sid) => sessionStoreKey(this.config, sid)),
      sessionId,
      String(Date.now()),
      ...listed,
    );
  }

  /** The user's listed session ids with their login times (the account's list of sessions). */
  async sessionsOf(userId: string): Promise<{ sessionId: string; startedAt: Date }[]> {
    const flat = await this.redis.zrange(this.indexKey(userId), 0, -1, 'WITHSCORES');
    const sessions: { sessionId: string; startedAt: Date }[] = [];
    for (let i = 0; i < flat.length; i += 2) {
      sessions.push({ sessionId: flat[i]!, startedAt: new Date(Number(flat[i + 1])) });
    }
    return sessions;
  }

  /** Ends one session (logout) and closes its sockets. */
  async endSession(userId: string, sessionId: string): Promise<void> {
    await this.redis
      .multi()
      .del(sessionStoreKey(this.config, sessionId))
      .zrem(this.indexKey(userId), sessionId)
      .exec();
    this.announceEnded(userId, [sessionId]);
  }

  /**
   * Ends every session of the user but `except` (the caller's own, e.g. after changing one's
   * password) and, with `startedBefore`, only those that began before that moment; closes their
   * sockets. Returns how many sessions it ended.
   */
  async endAllSessionsOf(
    userId: string,
    options: { except?: string; startedBefore?: Date } = {},
  ): Promise<number> {
    const index = this.indexKey(userId);
    const upTo = options.startedBefore ? `(${options.startedBefore.getTime()}` : '+inf';
    const sessionIds = (await this.redis.zrangebyscore(index, '-inf', upTo)).filter(
      (sid) => sid !== options.except,
    );
    if (sessionIds.length) {
      await this.redis
        .multi()
        .del(...sessionIds.map((sid) => sessionStoreKey(this.config, sid)))
        .zrem(index, ...sessionIds)
        .exec();
    }
    if (sessionIds.length) this.announceEnded(userId, sessionIds);
    return sessionIds.length;
  }

  /** Synchronous: realtime's listener has closed the sockets (sent the order) when this returns. */
  private announceEnded(userId: string, sessionIds: string[]): void {
    const payload: SessionsEndedPayload = { userId, sessionIds };
    this.emitter.emit(SessionEvents.ended, payload);
  }

  private indexKey(userId: string): string {
    return `${this.config.REDIS_PREFIX}:user-sessions:${userId}`;
  }
}

/**
 * The revoker, for the API (logout) and the worker (role changes) alike. Each app also imports
 * RealtimeModule, whose listener closes the sockets of the sessions it ends.
 */
@Global()
@Module({
  providers: [SessionRevoker],
  exports: [SessionRevoker],
})
export class SessionRevokerModule {}
