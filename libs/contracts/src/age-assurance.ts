/**
 * Age assurance (UK Online Safety Act Part 5, Ofcom's guidance on highly effective age assurance):
 * what an account must pass before the tools that can make sexual content of a person, and the
 * reason codes every refusal carries. Written once for the server, the screens and the tests.
 */
import type { JobTool } from './jobs';

/** How an account was assured: a credit card check, staff reviewing proof outside the studio, or a provider. */
export const AGE_ASSURANCE_METHODS = ['credit_card', 'manual', 'provider'] as const;
export type AgeAssuranceMethod = (typeof AGE_ASSURANCE_METHODS)[number];

/** What the studio keeps of a check: no card number, no ID image, no date of birth. */
export interface AgeAssuranceStatus {
  /** Whether this studio asks for the check at all (AGE_ASSURANCE=required). */
  required: boolean;
  assured: boolean;
  method?: AgeAssuranceMethod;
  assuredAt?: string;
  /** The external age-check provider this studio offers (set up by the operator), if any. */
  provider?: 'persona';
}

/** The whole record of a check, as the account export gives it to its owner. */
export interface AgeAssuranceRecordView {
  method: AgeAssuranceMethod;
  assuredAt: string;
  /** The provider's reference (Stripe's SetupIntent, Persona's inquiry id) or the staff member's username. */
  reference: string;
}

/** The screen with the check, linked from every refusal. */
export const AGE_CHECK_PATH = '/age-check';

/** Tools that edit uploaded photographs of people: closed until the account is assured. */
export const AGE_GATED_TOOLS: readonly JobTool[] = ['inpaint', 'faceSwap', 'faceSwapVideo'];

/** Tags of the Generate screen that ask for sexual content (by config key). */
export const SEXUAL_CONTENT_TAGS: Readonly<Record<string, readonly string[]>> = {
  clothing: ['nude', 'lingerie', 'latex'],
  setting: ['strip club'],
};

/** Words of a free prompt that ask for sexual content (whole words, any case). */
export const SEXUAL_PROMPT_WORDS = [
  ...Object.values(SEXUAL_CONTENT_TAGS).flat(),
  'naked',
  'topless',
  'sex',
  'sexual',
  'sexy',
  'erotic',
  'porn',
  'nsfw',
  'explicit',
  'undressed',
] as const;
const sexualPrompt = new RegExp(`\\b(${SEXUAL_PROMPT_WORDS.join('|')})\\b`, 'i');

/** Whether Generate's tags or prompt ask for sexual content. */
export function asksForSexualContent(request: { tags?: Record<string, string>; prompt?: string }): boolean {
  const { tags, prompt } = request;
  const tagged = Object.entries(SEXUAL_CONTENT_TAGS).some(([key, values]) =>
    values.includes(tags?.[key] ?? ''),
  );
  return tagged || sexualPrompt.test(prompt ?? '');
}

/** Whether a request needs an assured account: the photo tools always, Generate when it asks for sexual content. */
export function needsAgeAssurance(
  tool: JobTool,
  request: { tags?: Record<string, string>; prompt?: string } = {},
): boolean {
  return AGE_GATED_TOOLS.includes(tool) || (tool === 'generate' && asksForSexualContent(request));
}

/**
 * Reason codes of refusals and holds: each is shown in plain words (below), written in the audit
 * log and counted in the metrics.
 */
export const SAFETY_REASONS = {
  age_not_assured:
    'This needs an age check first: check your age once (a credit card check, nothing is charged).',
  card_not_credit:
    'That card is not a credit card. Debit and prepaid cards can be held by under-18s, so they do not prove age: use a credit card.',
  card_check_incomplete: 'The card check was not completed: nothing was saved.',
  age_check_declined:
    'The age check with the provider did not pass (or was not finished), so nothing was saved. You can start a new check, or use the credit card check.',
  sexual_input:
    'A picture you gave looks sexual. Face swap is never done with sexual pictures of real people.',
  sexual_output:
    'The result looked sexual and was withheld: Magic Brush never makes sexual pictures of a real person. Your coins were refunded.',
  minor_face:
    'The result shows a face that may be under 18: it is held for a moderator to look at before you can see it.',
  check_failed:
    'The safety check of the result could not run, so the result was not kept. Your coins were refunded; please try again.',
} as const;
export type SafetyReason = keyof typeof SAFETY_REASONS;

/** What was done for a reason: refused before any charge, withheld and refunded, held for review, or a moderator's decision. */
export const SAFETY_ACTIONS = ['refused', 'withheld', 'held', 'released', 'removed'] as const;
export type SafetyAction = (typeof SAFETY_ACTIONS)[number];

/** nsfwjs' class scores, stored with items and jobs. */
export interface ContentScores {
  drawing: number;
  hentai: number;
  neutral: number;
  porn: number;
  sexy: number;
}

/** What was seen in one input or output: class scores and each face's estimated age. */
export interface ContentCheck {
  scores: ContentScores;
  faces: { box: [number, number, number, number]; age: number }[];
}

/** The operator's thresholds (SAFETY_SEXUAL_THRESHOLD, SAFETY_MINOR_AGE). */
export interface SafetyPolicy {
  /**
   * An image is sexual when nsfwjs' porn + hentai reaches this. Its 'sexy' class (suggestive:
   * swimwear, lingerie) is stored but not counted: the project's own bikini test photos score 0.93–0.997 on it.
   */
  sexualThreshold: number;
  /** A face estimated younger than this holds a generated output for review. */
  minorAge: number;
}

export const DEFAULT_SAFETY_POLICY: SafetyPolicy = { sexualThreshold: 0.7, minorAge: 18 };

/** Frames of a video output the content check looks at, spread over it, the first included. */
export const VIDEO_FRAMES_CHECKED = 4;

export const sexualScore = (scores: ContentScores): number => scores.porn + scores.hentai;

export const isSexual = (check: ContentCheck, policy: SafetyPolicy): boolean =>
  sexualScore(check.scores) >= policy.sexualThreshold;

export const hasMinorFace = (check: ContentCheck, policy: SafetyPolicy): boolean =>
  check.faces.some((face) => face.age < policy.minorAge);

/** Stripe's published test cards (https://docs.stripe.com/testing) offered on the local test page. */
export const TEST_CARDS = [
  { number: '4242424242424242', brand: 'Visa', funding: 'credit' },
  { number: '5555555555554444', brand: 'Mastercard', funding: 'credit' },
  { number: '4000056655665556', brand: 'Visa', funding: 'debit' },
  { number: '5200828282828210', brand: 'Mastercard', funding: 'debit' },
  { number: '5105105105105100', brand: 'Mastercard', funding: 'prepaid' },
] as const;
export type CardFunding = 'credit' | 'debit' | 'prepaid' | 'unknown';

/** An age check at the external provider (Persona): its inquiry and the hosted flow's address. */
export interface ProviderCheckStart {
  reference: string;
  url: string;
}

export interface CardCheckStart {
  /** Stripe's page (or, in local test mode, the site's test page) where the card is entered. */
  url: string;
  sessionId: string;
}

export interface ManualAgeCheckRequest {
  /** What staff saw, for the audit log (never the document itself). */
  reason: string;
}

export const AgeAssuranceMessages = {
  checkNotFound: 'No such card check',
  testModeOnly: 'Local test mode only',
  unknownTestCard: 'Use one of the test cards shown on this page',
  alreadyAssured: 'This account is already age-assured',
  reasonRequired: 'Say what you checked (at least 10 characters)',
  notForYourself: 'Another member of staff records your own age check',
  providerNotConfigured: 'No age-check provider is set up on this studio: use the credit card check',
  providerCheckNotFound: 'No such age check',
  providerCheckPending: 'The age check is not finished yet: finish it on the provider’s page, then come back',
  badSignature: 'Invalid signature',
  staleSignature: 'The signature’s time is outside the accepted window',
} as const;

/** An output held for review, as the moderation queue lists it. */
export interface HeldItem {
  itemId: string;
  owner: string;
  jobId?: string;
  title?: string;
  reason: SafetyReason;
  reasonText: string;
  heldAt: string;
  scores?: ContentScores;
  faces: ContentCheck['faces'];
}

/** A moderator's decision on a held output. */
export type ModerationDecision = 'released' | 'removed';

export interface ModerationDecisionRequest {
  /** Why, in the moderator's words: audited, and shown to the owner. */
  reason: string;
}

export const ModerationMessages = {
  reasonRequired: 'Say why (at least 10 characters)',
  ownItem: 'Another moderator decides on your own outputs',
} as const;

/** What the owner is told when a moderator decides on one of their held outputs. */
export interface ModerationOutcome {
  itemId: string;
  jobId?: string;
  title?: string;
  folderId?: string;
  decision: ModerationDecision;
  /** Why it was held (the policy's reason code). */
  heldFor: SafetyReason;
  /** The moderator's reason. */
  note: string;
  /** Credits given back for a removed output of a paid job (0 when released). */
  refunded: number;
}
