/**
 * The content-safety module's face: the classifier port (nsfwjs and Human's face ages on the engine
 * pool), the content policy (ContentSafety), the reason-coded refusal, and the safety log (one
 * domain event per decision: the audit log writes it, the metrics count it).
 *
 * Above engines (the pool that runs the classifier) and events; below age-assurance and generation.
 */
export { ContentClassifierPort } from './content-classifier.port';
export type { TimedContentCheck } from './content-classifier.port';
export { ContentSafety, describe as describeChecks } from './content-safety.service';
export type { OutputOwner, OutputVerdict } from './content-safety.service';
export { ContentSafetyModule } from './content-safety.module';
export { SafetyLog } from './safety-log';
export { SafetyRefusal } from './safety-refusal';
