/**
 * What auth announces in-process (on the app's EventEmitter2, @nestjs/event-emitter) when login
 * sessions end. Auth owns sessions but sits below realtime, which owns the sockets opened under
 * them: realtime listens for this and closes those sockets, so auth never imports realtime.
 * In-process and synchronous (not a domain event): the sockets close in the same call that ends
 * the sessions, in the API (logout) and the worker (role changes) alike.
 */
export const SessionEvents = {
  ended: 'auth.sessions_ended',
} as const;

export interface SessionsEndedPayload {
  userId: string;
  /** The ended sessions' ids (each has a socket room, SocketRooms.session(id)). */
  sessionIds: string[];
}
