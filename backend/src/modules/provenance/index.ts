/**
 * The provenance module's face: marking outputs before they are stored, and the verify page.
 * Above audit (an admin's look-up of a file's owner on the verify page is audited) and below
 * generation, whose job runner marks each output before storing it.
 */
export { ProvenanceModule } from './provenance.module';
export { ProvenanceService, provenanceProblem } from './provenance.service';
export type { JobToMark, OutputToMark } from './provenance.service';
/** The verify page's upload check (type by magic bytes, size, pixel and video budgets), shared with the report page. */
export { checkMedia } from './verify.controller';
export type { MarkedOutput } from './provenance.service';
