import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { SocketRooms } from '@studio/contracts';
import { SessionEvents, type SessionsEndedPayload } from '../auth';
import { RealtimePublisher } from './realtime.publisher';

/**
 * Sockets end with their session. Sessions are auth's and sockets are realtime's; auth sits below
 * realtime (the gateway authenticates the handshake with auth's sessions), so instead of importing
 * realtime, auth announces SessionEvents.ended in-process and this closes each ended session's
 * socket room, on whichever API instance its sockets are connected (through the Redis adapter).
 */
@Injectable()
export class SessionSocketsListener {
  constructor(private readonly publisher: RealtimePublisher) {}

  @OnEvent(SessionEvents.ended)
  onSessionsEnded({ sessionIds }: SessionsEndedPayload): void {
    for (const sid of sessionIds) this.publisher.disconnectRoom(SocketRooms.session(sid));
  }
}
