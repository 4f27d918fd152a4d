import { Inject, Injectable, Logger } from '@nestjs/common';
import { Emitter } from '@socket.io/redis-emitter';
import type Redis from 'ioredis';
import { SocketRooms, type SocketEventPayloads } from '@studio/contracts';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { reportFailedPublishes } from '../../infrastructure/outage';
import { REDIS } from '../../infrastructure/redis.module';

export const socketChannelKey = (config: AppConfig) => `${config.REDIS_PREFIX}#socket.io`;

/**
 * Pushes socket events from any process (API or worker) through Redis; the gateway's Redis
 * adapter delivers them to the browsers connected to whichever API instance.
 */
@Injectable()
export class RealtimePublisher {
  private readonly logger = new Logger(RealtimePublisher.name);
  private readonly emitter: Emitter;

  constructor(@Inject(REDIS) redis: Redis, @Inject(APP_CONFIG) config: AppConfig) {
    // The emitter only publishes, and never handles publish()'s promise: a push that fails while
    // Redis is down is logged (and lost) rather than ending the process.
    const publisher = reportFailedPublishes({ publish: redis.publish.bind(redis) }, (err) =>
      this.logger.warn(`socket push lost: ${err.message}`),
    );
    this.emitter = new Emitter(publisher, { key: socketChannelKey(config) });
  }

  toUser<E extends keyof SocketEventPayloads>(
    userId: string,
    event: E,
    payload: SocketEventPayloads[E],
  ): void {
    this.emitter.to(SocketRooms.user(userId)).emit(event, payload);
  }

  /** Every connected browser (maintenance notices, feature flags). */
  toAll<E extends keyof SocketEventPayloads>(event: E, payload: SocketEventPayloads[E]): void {
    this.emitter.emit(event, payload);
  }

  toAdmins<E extends keyof SocketEventPayloads>(event: E, payload: SocketEventPayloads[E]): void {
    this.emitter.to(SocketRooms.admins).emit(event, payload);
  }

  /** Moderators and admins (the moderation queue's screen). */
  toModerators<E extends keyof SocketEventPayloads>(event: E, payload: SocketEventPayloads[E]): void {
    this.emitter.to(SocketRooms.moderators).emit(event, payload);
  }

  /** Takes every socket of the user out of the room, on whichever API instance it is connected. */
  removeUserFrom(userId: string, room: string): void {
    this.emitter.in(SocketRooms.user(userId)).socketsLeave(room);
  }

  /** Closes every socket in the room, on whichever API instance it is connected. */
  disconnectRoom(room: string): void {
    this.emitter.in(room).disconnectSockets(true);
  }
}
