import { Global, Inject, Injectable, Module } from '@nestjs/common';
import type Redis from 'ioredis';
import { SocketRooms } from '@studio/contracts';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { REDIS } from '../../infrastructure/redis.module';
import { RealtimeModule } from '../realtime/realtime.module';
import { RealtimePublisher } from '../realtime/realtime.publisher';
import { sessionStoreKey } from './session';

/**
 * Ends login sessions: the session in Redis (so its cookie is worth nothing) and the sockets
 * opened under it (on every API instance, through the Socket.IO Redis adapter). Logout ends one
 * session; a role change ends all of a user's sessions, and so will a password change.
 *
 * Each user's session ids are kept in a Redis sorted set scored by login time, written at login,
 * so that all of them can be found, and so that an event handled late (role changes arrive through
 * the event queue) ends only the sessions started before it; ids whose session has expired are
 * pruned at the next login.
 */
@Injectable()
export class SessionRevoker {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly realtime: RealtimePublisher,
  ) {}

  /** Records a fresh login session of the user. */
  async remember(userId: string, sessionId: string): Promise<void> {
    const index = this.indexKey(userId);
    const known = await this.redis.zrange(index, 0, -1);
    const checks = this.redis.pipeline();
    for (const sid of known) checks.exists(sessionStoreKey(this.config, sid));
    const alive = known.length ? ((await checks.exec()) ?? []) : [];
    const ended = known.filter((_, i) => alive[i]?.[1] === 0);
    const tx = this.redis.multi();
    if (ended.length) tx.zrem(index, ...ended);
    tx.zadd(index, Date.now(), sessionId);
    await tx.exec();
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
    this.realtime.disconnectRoom(SocketRooms.session(sessionId));
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
    for (const sid of sessionIds) this.realtime.disconnectRoom(SocketRooms.session(sid));
    return sessionIds.length;
  }

  private indexKey(userId: string): string {
    return `${this.config.REDIS_PREFIX}:user-sessions:${userId}`;
  }
}

/** The revoker, for the API (logout) and the worker (role changes) alike. */
@Global()
@Module({
  imports: [RealtimeModule],
  providers: [SessionRevoker],
  exports: [SessionRevoker],
})
export class SessionRevokerModule {}
