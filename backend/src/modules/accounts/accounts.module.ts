import { Global, Module } from '@nestjs/common';
import { ACCOUNT_DIRECTORY } from '../auth';
import { MongooseModule } from '@nestjs/mongoose';
import { MailModule } from '../mail';
import { AccountSecurityService } from './account-security.service';
import { AccountSessions } from './account-sessions';
import { AccountSuspensions } from './account-suspensions';
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
    MongooseModule.forFeature([
      { name: Account.name, schema: AccountSchema },
      { name: AccountToken.name, schema: AccountTokenSchema },
    ]),
    MailModule,
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
    AccountSuspensions,
    LoginThrottle,
  ],
  // The Mongoose models too: billing owns the money fields of the account document.
  // AccountSecurityService and AccountTokens for account-data (deletion checks the password).
  // AccountSuspensions for takedown (repeated confirmed removals suspend the account).
  exports: [
    AccountsRepository,
    ACCOUNT_DIRECTORY,
    AccountsService,
    AccountSecurityService,
    AccountTokens,
    AccountSuspensions,
    MongooseModule,
  ],
})
export class AccountsModule {}
