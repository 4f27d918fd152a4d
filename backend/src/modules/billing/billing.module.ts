import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { AccountBalances } from './account-balances';
import { BillingController } from './billing.controller';
import { CheckoutRecords, CheckoutSession, CheckoutSessionSchema } from './checkout-records';
import { CreditApproval, CreditApprovalSchema } from './credit-approval.schema';
import { JobLiveness } from './job-liveness';
import { LedgerEntry, LedgerEntrySchema } from './ledger-entry.schema';
import { LedgerService } from './ledger.service';
import {
  PatreonRedemption,
  PatreonRedemptionSchema,
  PatreonSecret,
  PatreonSecretSchema,
} from './patreon-secret.schema';
import { PatreonService } from './patreon.service';
import { PaymentsPort } from './payments.port';
import { PaymentsService } from './payments.service';
import { StripePaymentsAdapter } from './stripe-payments.adapter';
import { AdminCreditsController, SupportController } from './support.controller';
import { SupportCreditsService } from './support-credits.service';
import { StaffCreditUsage } from './staff-credit-usage';
import { TestCheckoutController } from './test-checkout.controller';
import { TestCheckoutSessions } from './test-checkout-sessions';
import {
  AllowanceClaim,
  AllowanceClaimSchema,
  AllowanceStatsController,
  WelcomeAllowance,
} from './welcome-allowance';

/** Credits: the ledger (used by other modules), payments, Patreon, support credit tools. */
@Module({
  imports: [
    MongooseModule.forFeature([
      { name: LedgerEntry.name, schema: LedgerEntrySchema },
      { name: PatreonSecret.name, schema: PatreonSecretSchema },
      { name: PatreonRedemption.name, schema: PatreonRedemptionSchema },
      { name: CreditApproval.name, schema: CreditApprovalSchema },
      { name: AllowanceClaim.name, schema: AllowanceClaimSchema },
      { name: CheckoutSession.name, schema: CheckoutSessionSchema },
    ]),
  ],
  controllers: [
    BillingController,
    SupportController,
    AdminCreditsController,
    TestCheckoutController,
    AllowanceStatsController,
  ],
  providers: [
    AccountBalances,
    CheckoutRecords,
    LedgerService,
    JobLiveness,
    PaymentsService,
    PatreonService,
    SupportCreditsService,
    StaffCreditUsage,
    TestCheckoutSessions,
    WelcomeAllowance,
    { provide: PaymentsPort, useClass: StripePaymentsAdapter },
  ],
  exports: [LedgerService, JobLiveness],
})
export class BillingModule {}
