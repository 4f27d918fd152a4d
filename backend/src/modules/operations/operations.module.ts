import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { EnginesModule } from '../generation/engines.module';
import { RealtimeModule } from '../realtime/realtime.module';
import { EnginesStatusService } from './engines-status.service';
import { EnginesController } from './engines.controller';
import { OperationsController } from './operations.controller';
import { OperationsSetting, OperationsSettingSchema } from './operations.schema';
import { OperationsService } from './operations.service';

@Module({
  imports: [
    MongooseModule.forFeature([{ name: OperationsSetting.name, schema: OperationsSettingSchema }]),
    EnginesModule,
    RealtimeModule,
  ],
  controllers: [OperationsController, EnginesController],
  providers: [OperationsService, EnginesStatusService],
  exports: [OperationsService],
})
export class OperationsModule {}
