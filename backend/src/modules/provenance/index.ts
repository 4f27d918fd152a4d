/** The provenance module's face: marking outputs before they are stored, and the verify page. */
export { ProvenanceModule } from './provenance.module';
export { ProvenanceService } from './provenance.service';
export type { JobToMark, OutputToMark } from './provenance.service';
