import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { REDIS } from '../../infrastructure/redis.module';
import { AuditModule } from '../audit';
import { ContentSafetyModule } from '../content-safety';
import { AgeAssuranceController, ManualAgeCheckController } from './age-assurance.controller';
import { AgeAssurance, AgeAssuranceSchema } from './age-assurance.schema';
import { AgeAssuranceService } from './age-assurance.service';
import { CardCheckPort } from './card-check.port';
import { StripeCardCheck } from './stripe-card-check.adapter';
import { TestCardCheck } from './test-card-check.adapter';

/** Age assurance: the credit card check (Stripe, or npm start's local test mode), staff checks, the gate. */
@Module({
  imports: [
    MongooseModule.forFeature([{ name: AgeAssurance.name, schema: AgeAssuranceSchema }]),
    AuditModule,
    ContentSafetyModule,
  ],
  controllers: [AgeAssuranceController, ManualAgeCheckController],
  providers: [
    AgeAssuranceService,
    {
      provide: CardCheckPort,
      inject: [APP_CONFIG, REDIS],
      useFactory: (config: AppConfig, redis: ConstructorParameters<typeof TestCardCheck>[1]) =>
        config.STRIPE_TEST_CHECKOUT ? new TestCardCheck(config, redis) : new StripeCardCheck(config),
    },
  ],
  exports: [AgeAssuranceService],
})
export class AgeAssuranceModule {}
