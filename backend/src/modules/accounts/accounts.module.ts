import { Global, Module } from '@nestjs/common';
import { ACCOUNT_DIRECTORY } from '../auth/account-directory';
import { MongooseModule } from '@nestjs/mongoose';
import { LedgerEntry, LedgerEntrySchema } from '../billing/ledger-entry.schema';
import {
  ContentItem,
  ContentItemSchema,
  InpaintBatch,
  InpaintBatchSchema,
} from '../folders/content-item.schema';
import { Folder, FolderSchema } from '../folders/folder.schema';
import { FoldersModule } from '../folders/folders.module';
import { Job, JobSchema } from '../generation/job.schema';
import { MailModule } from '../mail/mail.module';
import { RealtimeModule } from '../realtime/realtime.module';
import { AccountDataService } from './account-data.service';
import { AccountSecurityService } from './account-security.service';
import { AccountSessions } from './account-sessions';
import { AccountToken, AccountTokenSchema } from './account-token.schema';
import { AccountTokens } from './account-tokens';
import { AccountController } from './account.controller';
import { Account, AccountSchema } from './account.schema';
import { AccountsController } from './accounts.controller';
import { AccountsRepository } from './accounts.repository';
import { LoginThrottle } from './login-throttle';
import { AccountsService } from './accounts.service';
import { StaffUsersController } from './staff-users.controller';
import { StaffUsersService } from './staff-users.service';

/** Accounts and their repository (global: the session guard and the gateway read accounts). */
@Global()
@Module({
  imports: [
    MongooseModule.forFeature([{ name: Account.name, schema: AccountSchema }]),
    // Account export and deletion read (and delete) the owner's records of these modules.
    MongooseModule.forFeature([
      { name: AccountToken.name, schema: AccountTokenSchema },
      { name: ContentItem.name, schema: ContentItemSchema },
      { name: InpaintBatch.name, schema: InpaintBatchSchema },
      { name: Folder.name, schema: FolderSchema },
      { name: Job.name, schema: JobSchema },
      { name: LedgerEntry.name, schema: LedgerEntrySchema },
    ]),
    FoldersModule,
    MailModule,
    RealtimeModule,
  ],
  controllers: [AccountsController, AccountController, StaffUsersController],
  providers: [
    AccountsRepository,
    // auth's port for reading accounts (the session guard, the socket gateway)
    { provide: ACCOUNT_DIRECTORY, useExisting: AccountsRepository },
    AccountsService,
    StaffUsersService,
    AccountTokens,
    AccountSecurityService,
    AccountSessions,
    AccountDataService,
    LoginThrottle,
  ],
  // The Mongoose models too: billing owns the money fields of the account document.
  exports: [AccountsRepository, ACCOUNT_DIRECTORY, AccountsService, MongooseModule],
})
export class AccountsModule {}
