import { Global, Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { FoldersModule } from '../folders/folders.module';
import { Account, AccountSchema } from './account.schema';
import { AccountsController } from './accounts.controller';
import { AccountsRepository } from './accounts.repository';
import { AccountsService } from './accounts.service';
import { StaffUsersController } from './staff-users.controller';
import { StaffUsersService } from './staff-users.service';

/** Accounts and their repository (global: the session guard and the gateway read accounts). */
@Global()
@Module({
  imports: [MongooseModule.forFeature([{ name: Account.name, schema: AccountSchema }]), FoldersModule],
  controllers: [AccountsController, StaffUsersController],
  providers: [AccountsRepository, AccountsService, StaffUsersService],
  // The Mongoose models too: billing owns the money fields of the account document.
  exports: [AccountsRepository, AccountsService, MongooseModule],
})
export class AccountsModule {}
