import { Module } from '@nestjs/common';
import { RealtimePublisher } from './realtime.publisher';

/** The push side, usable from the API and the worker alike. */
@Module({
  providers: [RealtimePublisher],
  exports: [RealtimePublisher],
})
export class RealtimeModule {}
