/**
 * Age assurance (UK Online Safety Act Part 5, Ofcom's guidance on highly effective age assurance):
 * what an account must pass before the tools that can make sexual content of a person, and the
 * reason codes every refusal carries. Written once for the server, the screens and the tests.
 */
import {
  collapseDuplicatesTransformer,
  DataSet,
  englishDataset,
  englishRecommendedWhitelistMatcherTransformers,
  parseRawPattern,
  RegExpMatcher,
  resolveConfusablesTransformer,
  resolveLeetSpeakTransformer,
  toAsciiLowerCaseTransformer,
  type EnglishProfaneWord,
} from 'obscenity';
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

/**
 * The studio's own words and phrases of a free prompt that ask for sexual content, beside the
 * sexual terms of obscenity's English dataset (SEXUAL_DATASET_TERMS). Each is an obscenity pattern
 * (`|` marks a word boundary) written in plain spelling: the matcher finds it in any case, with
 * look-alike letters (Greek, Cyrillic, full-width, accents), leetspeak (`nud3`, `p0rn`), repeated
 * letters (`naaaked`), and spelled out letter by letter (`n.u.d.e`, `n u d e`). Without a boundary a
 * pattern also finds longer words: `nude` finds `nudes`, `erotic` finds `erotica`.
 */
export const SEXUAL_PROMPT_WORDS = [
  ...Object.values(SEXUAL_CONTENT_TAGS).flat(),
  'stripclub',
  'stripper',
  'striptease',
  'strip tease',
  'nudit',
  'nudis',
  'nudie',
  'naked',
  'topless',
  'bottomless',
  'unclothed',
  'unclad',
  '|undress',
  'disrobe',
  'wearing nothing',
  'not wearing anything',
  'no clothes',
  'no clothing',
  'without clothes',
  'without clothing',
  'clothes off',
  'birthday suit',
  'in the buff',
  'bare breast',
  'nipple',
  'genital',
  '|sexual',
  'sexy',
  '|sexie',
  'erotic',
  'nsfw',
  'lewd',
  'explicit',
  '|x rated',
  '|xrated',
  'softcore',
  'intercourse',
  'coitus',
  'cunnilingus',
  'threesome',
  'blow job',
  'hand job',
  'doggy style',
  'jerk off',
  'jerking off',
  'fetish',
  'bdsm',
  'bondage',
  'onlyfans',
  'ecchi',
  'ahegao',
] as const;

/**
 * The terms of obscenity's English dataset the gate uses: sexual acts, sexual anatomy and sexual
 * material. Its slurs and plain swearing (ass, bitch, fuck, shit, prick, twat ...) are left out: the
 * gate is about what an image shows, not about manners, and the output check judges the picture
 * anyway. Also left out: `anus` (it finds Coriolanus, Silvanus ...), `hooker` (rugby), `scat` (jazz).
 */
export const SEXUAL_DATASET_TERMS: readonly EnglishProfaneWord[] = [
  'anal',
  'bestiality',
  'blowjob',
  'boob',
  'buttplug',
  'cock',
  'cum',
  'cunt',
  'deepthroat',
  'dick',
  'dildo',
  'doggystyle',
  'double penetration',
  'ejaculate',
  'felch',
  'fellatio',
  'finger bang',
  'fisting',
  'gangbang',
  'handjob',
  'hentai',
  'incest',
  'jerk off',
  'jizz',
  'lubejob',
  'masturbate',
  'orgasm',
  'orgy',
  'penis',
  'porn',
  'pussy',
  'rape',
  'semen',
  'sex',
  'slut',
  'tit',
  'vagina',
  'wank',
  'whore',
];

/**
 * Innocent words and phrases that contain a term above: a match inside one of them does not count.
 * Lower case, hyphens written as spaces (the prompt's are). `nude` as a colour of make-up and
 * shoes is innocent; `nude woman` in the same prompt is still found.
 */
export const SEXUAL_PROMPT_ALLOWED = [
  'naked eye',
  'denude',
  'snaked',
  'nude lip',
  'nude heel',
  'nude nail',
  'nude makeup',
  'nude make up',
  'nude colour',
  'nude color',
  'nude tone',
  'nude shade',
  'nude beige',
  'latex glove',
  'latex paint',
  'latex balloon',
  'cockpit',
  'cocksure',
  'cockscomb',
  'cock a doodle',
  'cock robin',
  'blue tit',
  'great tit',
  'coal tit',
  'tit for tat',
  'titter',
  'cum laude',
  'cumin',
  'cummerbund',
  'pussy willow',
  'pussycat',
  'pussy cat',
  'booby trap',
  'booby prize',
  'footed booby',
  'dick van dyke',
  'moby dick',
  'philip k dick',
  'philip k. dick',
  'dickinson',
  'dickson',
  'wankel',
  'rapeseed',
  'penistone',
] as const;

/**
 * obscenity's English transformers, spelled out so the studio's patterns can be written in plain
 * spelling: its duplicate collapsing keeps at most two of b, e, o, l, s, g and one of any other
 * character ('stripper' is matched as 'striper'), and each pattern is collapsed the same way.
 */
const KEEP_DOUBLE = new Set(['b', 'e', 'o', 'l', 's', 'g']);
const collapsed = (word: string) =>
  word.toLowerCase().replace(/(.)\1+/g, (_run, c: string) => c.repeat(KEEP_DOUBLE.has(c) ? 2 : 1));

/** Separators a word may be spelled out with, one letter at a time: `n.u.d.e`, `n u d e`, `n*u*d*e`. */
const SEPARATOR_CHARS = String.raw`\s.*·•,:;/\\|+~'"`;
const SEPARATOR = `[${SEPARATOR_CHARS}]`;
const LETTER = `[^${SEPARATOR_CHARS}]`;
/** Three or more single letters, each standing alone between separators. */
const SPELLED_OUT = new RegExp(
  `(?<=^|${SEPARATOR})(?:${LETTER}${SEPARATOR}+){2,}${LETTER}(?=${SEPARATOR}|$)`,
  'gu',
);
const SEPARATORS = new RegExp(`${SEPARATOR}+`, 'gu');

let matcher: RegExpMatcher | undefined;
let dataset: DataSet<{ originalWord: string }> | undefined;

/** Built on first use (the screens import this file without ever matching a prompt). */
function sexualMatcher(): { matcher: RegExpMatcher; dataset: DataSet<{ originalWord: string }> } {
  if (!matcher || !dataset) {
    const terms = new Set<string>(SEXUAL_DATASET_TERMS);
    dataset = new DataSet<{ originalWord: string }>()
      .addAll(englishDataset)
      .removePhrasesIf((phrase) => !terms.has(phrase.metadata?.originalWord ?? ''));
    for (const word of SEXUAL_PROMPT_WORDS) {
      dataset.addPhrase((phrase) =>
        phrase
          .setMetadata({ originalWord: word.replace(/\|/g, '') })
          .addPattern(parseRawPattern(collapsed(word))),
      );
    }
    const built = dataset.build();
    matcher = new RegExpMatcher({
      blacklistedTerms: built.blacklistedTerms,
      whitelistedTerms: [...(built.whitelistedTerms ?? []), ...SEXUAL_PROMPT_ALLOWED],
      blacklistMatcherTransformers: [
        resolveConfusablesTransformer(),
        resolveLeetSpeakTransformer(),
        toAsciiLowerCaseTransformer(),
        collapseDuplicatesTransformer({
          defaultThreshold: 1,
          customThresholds: new Map([...KEEP_DOUBLE].map((c) => [c, 2])),
        }),
      ],
      whitelistMatcherTransformers: englishRecommendedWhitelistMatcherTransformers,
    });
  }
  return { matcher, dataset };
}

/**
 * The sexual term a prompt asks for (its plain spelling), or undefined. The prompt is first
 * normalised: accents and other combining marks and invisible characters removed, full-width and
 * other compatibility forms made plain, hyphens and underscores read as spaces; then looked at as
 * written and with letters spelled out one by one joined up.
 */
export function sexualTermIn(prompt: string): string | undefined {
  const { matcher, dataset } = sexualMatcher();
  const plain = prompt
    .normalize('NFKD')
    .replace(/[\p{M}\u00AD\u200B-\u200F\u2060\uFEFF]/gu, '')
    .replace(/[-_\u2010-\u2015]+/g, ' ');
  const joined = plain.replace(SPELLED_OUT, (run) => run.replace(SEPARATORS, ''));
  for (const text of joined === plain ? [plain] : [plain, joined]) {
    const [match] = matcher.getAllMatches(text, true);
    if (match) return dataset.getPayloadWithPhraseMetadata(match).phraseMetadata?.originalWord;
  }
  return undefined;
}

/** Whether Generate's tags or prompt ask for sexual content. */
export function asksForSexualContent(request: { tags?: Record<string, string>; prompt?: string }): boolean {
  const { tags, prompt } = request;
  const tagged = Object.entries(SEXUAL_CONTENT_TAGS).some(([key, values]) =>
    values.includes(tags?.[key] ?? ''),
  );
  return tagged || sexualTermIn(prompt ?? '') !== undefined;
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
  sexual_output_unassured:
    'Sexual images need an age check first: the result looked sexual, so it was not kept and your coins were refunded. Check your age once (a credit card check, nothing is charged), then try again.',
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
