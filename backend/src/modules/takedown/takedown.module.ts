import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { AuditModule } from '../audit';
import { EnginesModule } from '../engines';
import { FoldersModule } from '../folders';
import { ProvenanceModule } from '../provenance';
import { CopyFinder } from './copy-finder';
import { FingerprintBackfill } from './fingerprint-backfill';
import { ReceiptLimit } from './receipt-limit';
import { ReportsController } from './reports.controller';
import { ReportsService } from './reports.service';
import {
  BlockedHash,
  BlockedHashSchema,
  OutputFingerprint,
  OutputFingerprintSchema,
  RemovalAppeal,
  RemovalAppealSchema,
  TakedownReport,
  TakedownReportSchema,
} from './takedown.schemas';

/** (Accounts, mail and storage are global modules; accounts' AccountSuspensions suspends an owner after repeated removals.) Notice and removal: the public report page, copies found by hash and watermark, the block list. */
@Module({
  imports: [
    MongooseModule.forFeature([
      { name: TakedownReport.name, schema: TakedownReportSchema },
      { name: OutputFingerprint.name, schema: OutputFingerprintSchema },
      { name: BlockedHash.name, schema: BlockedHashSchema },
      { name: RemovalAppeal.name, schema: RemovalAppealSchema },
    ]),
    AuditModule,
    EnginesModule,
    FoldersModule,
    ProvenanceModule,
  ],
  controllers: [ReportsController],
  providers: [CopyFinder, ReportsService, FingerprintBackfill, ReceiptLimit],
  exports: [CopyFinder, FingerprintBackfill],
})
export class TakedownModule {}
