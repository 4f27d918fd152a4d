/**
 * The realtime module's face: pushes to browsers from any process (RealtimePublisher), the socket
 * gateway and its Socket.IO adapter, and the listeners that turn domain events into pushes.
 *
 * Above auth (the gateway and adapter authenticate sockets with auth's sessions and read accounts
 * through auth's ACCOUNT_DIRECTORY port) and below the modules that push (folders, billing's
 * listeners, generation, operations, audit). Sockets end with their session because auth
 * announces SessionEvents.ended and this module's SessionSocketsListener closes them, not because
 * auth calls in here.
 */
export { RealtimeGateway } from './realtime.gateway';
export { RealtimeListener } from './realtime.listener';
export { RealtimeModule } from './realtime.module';
export { RealtimePublisher } from './realtime.publisher';
export { SessionIoAdapter } from './socket-io.adapter';
