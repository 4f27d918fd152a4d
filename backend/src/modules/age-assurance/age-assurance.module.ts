import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { REDIS } from '../../infrastructure/redis.module';
import { AuditModule } from '../audit';
import { ContentSafetyModule } from '../content-safety';
import {
  AgeAssuranceController,
  ManualAgeCheckController,
  ProviderAgeCheckController,
} from './age-assurance.controller';
import { AgeProviderCheck, AgeProviderCheckSchema } from './age-provider-check.schema';
import { AgeProviderCheckService } from './age-provider-check.service';
import { AgeProviderPort } from './age-provider.port';
import { PersonaAgeCheck } from './persona-age-check.adapter';
import { AgeAssurance, AgeAssuranceSchema } from './age-assurance.schema';
import { AgeAssuranceService } from './age-assurance.service';
import { CardCheckPort } from './card-check.port';
import { StripeCardCheck } from './stripe-card-check.adapter';
import { TestCardCheck } from './test-card-check.adapter';

/**
 * Age assurance: the credit card check (Stripe, or npm start's local test mode), the external
 * provider's check (Persona), staff checks, the gate.
 */
@Module({
  imports: [
    MongooseModule.forFeature([
      { name: AgeAssurance.name, schema: AgeAssuranceSchema },
      { name: AgeProviderCheck.name, schema: AgeProviderCheckSchema },
    ]),
    AuditModule,
    ContentSafetyModule,
  ],
  controllers: [AgeAssuranceController, ProviderAgeCheckController, ManualAgeCheckController],
  providers: [
    AgeAssuranceService,
    AgeProviderCheckService,
    // the one external provider the studio speaks to (PERSONA_API_KEY); unconfigured it answers 503
    { provide: AgeProviderPort, useClass: PersonaAgeCheck },
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
