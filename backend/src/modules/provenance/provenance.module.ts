import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { AuditModule } from '../audit';
import { ProvenanceMark, ProvenanceMarkSchema } from './provenance-mark.schema';
import { ProvenanceService } from './provenance.service';
import { VerifyController } from './verify.controller';

/** Marks outputs (watermark + signed C2PA manifest) and serves the public verify page's API. */
@Module({
  imports: [
    MongooseModule.forFeature([{ name: ProvenanceMark.name, schema: ProvenanceMarkSchema }]),
    AuditModule,
  ],
  controllers: [VerifyController],
  providers: [ProvenanceService],
  exports: [ProvenanceService],
})
export class ProvenanceModule {}
