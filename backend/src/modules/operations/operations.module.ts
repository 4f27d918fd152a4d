import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { EnginesModule } from '../engines';
import { RealtimeModule } from '../realtime';
import { OperationsController } from './operations.controller';
import { OperationsSetting, OperationsSettingSchema } from './operations.schema';
import { OperationsService } from './operations.service';

/** Notices, feature flags and engine switches (OperationsService), the queue board. */
@Module({
  imports: [
    MongooseModule.forFeature([{ name: OperationsSetting.name, schema: OperationsSettingSchema }]),
    EnginesModule,
    RealtimeModule,
  ],
  controllers: [OperationsController],
  providers: [OperationsService],
  exports: [OperationsService],
})
export class OperationsModule {}
