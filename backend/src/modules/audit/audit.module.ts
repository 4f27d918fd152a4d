import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { RealtimeModule } from '../realtime';
import { AuditEntry, AuditEntrySchema } from './audit-entry.schema';
import { AuditCounters } from './audit-counters';
import { AuditUpgrade } from './audit-upgrade';
import { AuditController } from './audit.controller';
import { AuditService } from './audit.service';

@Module({
  imports: [MongooseModule.forFeature([{ name: AuditEntry.name, schema: AuditEntrySchema }]), RealtimeModule],
  controllers: [AuditController],
  providers: [AuditService, AuditCounters, AuditUpgrade],
  exports: [AuditService],
})
export class AuditModule {}
