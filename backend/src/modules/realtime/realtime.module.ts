import { Module } from '@nestjs/common';
import { RealtimePublisher } from './realtime.publisher';
import { SessionSocketsListener } from './session-sockets.listener';

/**
 * The push side, usable from the API and the worker alike; and the closing of sockets whose
 * session auth has ended (SessionSocketsListener), in whichever of them ended it.
 */
@Module({
  providers: [RealtimePublisher, SessionSocketsListener],
  exports: [RealtimePublisher],
})
export class RealtimeModule {}
