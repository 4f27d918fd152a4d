import { Module } from '@nestjs/common';
import { BillingModule } from '../billing';
import { EnginesModule } from '../engines';
import { FoldersModule } from '../folders';
import { ModerationController } from './moderation.controller';
import { ModerationQueue } from './moderation-queue';
import { ContentClassifierPort } from './content-classifier.port';
import { ContentSafety } from './content-safety.service';
import { PoolContentClassifier } from './pool-content-classifier';
import { SafetyLog } from './safety-log';

/** Looks at every input and output (nsfwjs and face ages on the engine pool) and applies the content policy. */
@Module({
  imports: [BillingModule, EnginesModule, FoldersModule],
  controllers: [ModerationController],
  providers: [
    { provide: ContentClassifierPort, useClass: PoolContentClassifier },
    ContentSafety,
    SafetyLog,
    ModerationQueue,
  ],
  exports: [ContentSafety, SafetyLog, ModerationQueue],
})
export class ContentSafetyModule {}
