import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { LedgerEntry, LedgerEntrySchema } from '../billing';
import {
  ContentItem,
  ContentItemSchema,
  InpaintBatch,
  InpaintBatchSchema,
  Folder,
  FolderSchema,
  FoldersModule,
} from '../folders';
import { Job, JobSchema } from '../generation';
import { AgeAssuranceModule } from '../age-assurance';
import { ApiKeysModule } from '../api-keys';
import { MailModule } from '../mail';
import { RealtimeModule } from '../realtime';
import { AccountDataController } from './account-data.controller';
import { AccountDataService } from './account-data.service';

/**
 * A user's data across modules: the profile (account and folders), the export (one zip of items,
 * credit history, jobs and account details) and the deletion of an account.
 *
 * A module above accounts, billing, folders and generation rather than a fan-out of an
 * account.deleted event: the export reads every module's data into one answer, and the deletion
 * has an order (sessions, files, items, folders, jobs, the ledger's pseudonym, the Stripe
 * customer, the account document last, so a deletion cut short is finished by repeating it with
 * the password) and one answer to give; handlers of an event could keep neither. Nothing below
 * imports this module.
 */
@Module({
  imports: [
    // Export and deletion read (and delete) the owner's records of these modules.
    MongooseModule.forFeature([
      { name: ContentItem.name, schema: ContentItemSchema },
      { name: InpaintBatch.name, schema: InpaintBatchSchema },
      { name: Folder.name, schema: FolderSchema },
      { name: Job.name, schema: JobSchema },
      { name: LedgerEntry.name, schema: LedgerEntrySchema },
    ]),
    AgeAssuranceModule,
    ApiKeysModule,
    FoldersModule,
    MailModule,
    RealtimeModule,
  ],
  controllers: [AccountDataController],
  providers: [AccountDataService],
})
export class AccountDataModule {}
