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
import type { JobTool } from './tools';

/** How an account was assured: a credit card check, staff reviewing proof outside the studio, or a provider. */
export const AGE_ASSURANCE_METHODS = ['credit_card', 'manual', 'provider'] as const;
export type AgeAssuranceMethod = (typeof AGE_ASSURANCE_METHODS)[number];
/** Each method in words for people (the account's age-check page, support's view of an account). */
export const AGE_ASSURANCE_METHOD_LABELS: Record<AgeAssuranceMethod, string> = {
  credit_card: 'credit card check',
  manual: 'check by our staff',
  provider: 'age check provider',
};

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
 * pattern also finds longer words: `nude` finds `nudes`, `erotic` finds `erotica`. Repeated letters
 * are squeezed before matching (see KEEP_DOUBLE), so a pattern whose squeezed spelling is the start
 * of an innocent word needs a boundary: `ecchi` is matched as `echi` (echidna, Ponte Vecchio).
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
  '|nekkid',
  '|nekked',
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
  'without any clothes',
  'without any clothing',
  'not wearing any clothes',
  '|clothes off|',
  'birthday suit',
  '|in the buff|',
  '|see through dress',
  '|see through top',
  '|see through blouse',
  '|see through shirt',
  '|see through bra',
  '|see through lingerie',
  'bare breast',
  'nipple',
  '|areola',
  '|genital',
  'vulva',
  'clitoris',
  '|clit|',
  '|clits|',
  '|sexual',
  'sexy',
  '|sexie',
  'erotic',
  'nsfw',
  '|pron|',
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
  '|ecchi|',
  'ahegao',
  // a few very common words of other languages: German, Spanish, French ("nue" alone is left
  // out: it is also a creature of Japanese folklore)
  '|nackt',
  '|desnud',
  '|femme nue',
  '|femmes nues',
  '|toute nue',
] as const;

/**
 * The words the prompt check also finds when they are broken up by punctuation or a space between
 * parts of the word (`na ked`, `nu de`, `top-less`, `n!u!d!e`, `n=u=d=e`): the parts are joined and
 * looked at again, and a match counts only when it starts at the start of one part and ends at the
 * end of another. Only unmistakable words that no two innocent words make: not `sex` ("it's ex-wife"), `penis`
 * ("the pen is"), `handjob` ("second-hand job"), `stripper` ("a comic strip per day") or `porno`
 * (Spanish "por no").
 */
export const SEXUAL_JOINED_WORDS = [
  'nude',
  'nudes',
  'nudity',
  'nudist',
  'nudists',
  'naked',
  'nakedness',
  'nekkid',
  'topless',
  'undressed',
  'undressing',
  'unclothed',
  'nipple',
  'nipples',
  'porn',
  'pornography',
  'pornographic',
  'erotic',
  'erotica',
  'sexy',
  'sexual',
  'nsfw',
  'orgasm',
  'vagina',
  'vulva',
  'clitoris',
  'dildo',
  'masturbate',
  'masturbation',
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
  // places, names and things that contain a term, found in review
  'naked mole',
  'naked cake',
  'naked gun',
  'naked flame',
  'second hand job',
  'bottomless pit',
  'bottomless brunch',
  'bottomless cup',
  'bottomless coffee',
  'bottomless drink',
  'bottomless mimosa',
  'nudel',
  'nudie suit',
  'heterotic',
  'areolar',
  'kanal',
  'pornic',
  'semenov',
  'slutsk',
  'wankhede',
  'dildo newfoundland',
  'dildo, newfoundland',
] as const;

/**
 * obscenity's English transformers, spelled out so the studio's patterns can be written in plain
 * spelling: its duplicate collapsing keeps at most two of the letters below and one of any other
 * character, and each pattern is collapsed the same way. obscenity keeps two of b, e, o, l, s, g;
 * the studio adds f, p and z, whose single spelling is another word or never matched ('clothes off'
 * would find "clothes of the king", 'stripper' the fish "striper", and 'jizz' nothing at all).
 */
const KEEP_DOUBLE = new Set(['b', 'e', 'o', 'l', 's', 'g', 'f', 'p', 'z']);
const collapsed = (word: string) =>
  word.toLowerCase().replace(/(.)\1+/g, (_run, c: string) => c.repeat(KEEP_DOUBLE.has(c) ? 2 : 1));

/**
 * Greek and Cyrillic letters are read as the Latin letter they look like (obscenity's confusables:
 * Cyrillic `е` is e, Greek `ρ` is p), with the few it gets wrong or lacks put right here ...
 */
const LOOKS_LIKE: Readonly<Record<string, string>> = { ι: 'i', Ι: 'I', δ: 'd', μ: 'u' };
const LOOKS_LIKE_CHARS = new RegExp(`[${Object.keys(LOOKS_LIKE).join('')}]`, 'gu');
/**
 * ... and, inside a word that mixes them with Latin letters, also as the Latin letter they stand
 * for: `νude` with a Greek nu is `nude` (obscenity reads it as a look-alike v), `nаkеd` with a
 * Cyrillic `н` is `naked`. Lower case; a letter not here is left to the look-alikes.
 */
const SOUNDS_LIKE: Readonly<Record<string, string>> = {
  ...letterPairs('αβγδεζηικλμνξοπρσςτυφω', 'abgdeziiklmnxoprsstufo'),
  θ: 'th',
  χ: 'ch',
  ψ: 'ps',
  ...letterPairs('абвгдезийклмнопрстуфхцыэіјѕєґ', 'abvgdeziiklmnoprstufhcyeijseg'),
  ж: 'zh',
  ч: 'ch',
  ш: 'sh',
  щ: 'sh',
  ю: 'yu',
  я: 'ya',
  ъ: '',
  ь: '',
};
function letterPairs(from: string, to: string): Record<string, string> {
  return Object.fromEntries([...from].map((c, i) => [c, to[i]]));
}
const GREEK_OR_CYRILLIC = /[\p{Script=Greek}\p{Script=Cyrillic}]/gu;
/** A word: letters and digits, and leetspeak's @ and $. */
const WORD = /[\p{L}\p{N}@$]+/gu;
const isMixed = (word: string) =>
  /[a-z0-9@$]/i.test(word) && /[\p{Script=Greek}\p{Script=Cyrillic}]/u.test(word);

/** Separators a word may be spelled out with, one letter at a time: `n.u.d.e`, `n u d e`, `n*u*d*e`. */
const SEPARATOR_CHARS = String.raw`\s.*·•,:;/\\|+~'"!=#^`;
const SEPARATOR = `[${SEPARATOR_CHARS}]`;
const LETTER = `[^${SEPARATOR_CHARS}]`;
/** Three or more single letters, each standing alone between separators. */
const SPELLED_OUT = new RegExp(
  `(?<=^|${SEPARATOR})(?:${LETTER}${SEPARATOR}+){2,}${LETTER}(?=${SEPARATOR}|$)`,
  'gu',
);
const SEPARATORS = new RegExp(`${SEPARATOR}+`, 'gu');
/**
 * What may stand between two parts of one word broken up (SEXUAL_JOINED_WORDS): punctuation and
 * symbols without a space (`n!u!d!e`, `n=u=d=e`), or spaces alone (`na ked`, and `top-less`, whose
 * hyphen is a space by then); not both (`top, less`).
 */
const JOINABLE = /^(?:\S+|\s+)$/u;

const blacklistTransformers = () => [
  resolveConfusablesTransformer(),
  resolveLeetSpeakTransformer(),
  toAsciiLowerCaseTransformer(),
  collapseDuplicatesTransformer({
    defaultThreshold: 1,
    customThresholds: new Map([...KEEP_DOUBLE].map((c) => [c, 2])),
  }),
];

let matcher: RegExpMatcher | undefined;
let dataset: DataSet<{ originalWord: string }> | undefined;
let joinedMatcher: RegExpMatcher | undefined;

/** Built on first use (the screens import this file without ever matching a prompt). */
function sexualMatcher(): {
  matcher: RegExpMatcher;
  dataset: DataSet<{ originalWord: string }>;
  joinedMatcher: RegExpMatcher;
} {
  if (!matcher || !dataset || !joinedMatcher) {
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
      blacklistMatcherTransformers: blacklistTransformers(),
      whitelistMatcherTransformers: englishRecommendedWhitelistMatcherTransformers,
    });
    joinedMatcher = new RegExpMatcher({
      blacklistedTerms: SEXUAL_JOINED_WORDS.map((word, id) => ({
        id,
        pattern: parseRawPattern(collapsed(word)),
      })),
      blacklistMatcherTransformers: blacklistTransformers(),
    });
  }
  return { matcher, dataset, joinedMatcher };
}

/**
 * A word of SEXUAL_JOINED_WORDS made of two or more parts of the text joined up (JOINABLE): it
 * must start where a part starts and end where a later part ends (repeated letters at the end
 * allowed), so "laptop less" or "menu design" do not make topless or nude.
 */
function joinedTermIn(text: string, joinedMatcher: RegExpMatcher): string | undefined {
  const parts = [...text.matchAll(WORD)];
  let start = 0;
  for (let i = 1; i <= parts.length; i++) {
    const previous = parts[i - 1];
    const next = parts[i];
    const between = next && text.slice((previous.index ?? 0) + previous[0].length, next.index ?? 0);
    if (between !== undefined && JOINABLE.test(between)) continue;
    const group = parts.slice(start, i).map((part) => part[0]);
    start = i;
    if (group.length < 2) continue;
    const joined = group.join('');
    const starts: number[] = [];
    let offset = 0;
    for (const part of group) {
      starts.push(offset);
      offset += part.length;
    }
    for (const match of joinedMatcher.getAllMatches(joined)) {
      const first = starts.indexOf(match.startIndex);
      const last = starts.findLastIndex((s) => s <= match.endIndex);
      const end = last + 1 < starts.length ? starts[last + 1] : joined.length;
      const rest = joined.slice(match.endIndex + 1, end).toLowerCase();
      const lastChar = joined[match.endIndex].toLowerCase();
      if (first !== -1 && last > first && [...rest].every((c) => c === lastChar)) {
        return SEXUAL_JOINED_WORDS[match.termId];
      }
    }
  }
  return undefined;
}

/**
 * The sexual term a prompt asks for (its plain spelling), or undefined. The prompt is first
 * normalised: accents and other combining marks and invisible characters (every default-ignorable
 * code point: zero-width spaces and joiners, U+180E, the Hangul fillers U+115F …) removed,
 * full-width and other compatibility forms made plain, hyphens and underscores read as spaces;
 * then looked at as written, with letters spelled out one by one joined up, and with the parts of
 * a broken-up word joined (SEXUAL_JOINED_WORDS only); a word mixing Latin with Greek or Cyrillic
 * letters is looked at both with them read as look-alikes and as the letters they stand for.
 */
export function sexualTermIn(prompt: string): string | undefined {
  const { matcher, dataset, joinedMatcher } = sexualMatcher();
  const plain = prompt
    .normalize('NFKD')
    .replace(/[\p{M}\p{Default_Ignorable_Code_Point}]/gu, '')
    .replace(/[-_\u2010-\u2015]+/g, ' ');
  const byLooks = plain.replace(LOOKS_LIKE_CHARS, (c) => LOOKS_LIKE[c]);
  const bySounds = plain
    .replace(WORD, (word) =>
      isMixed(word) ? word.replace(GREEK_OR_CYRILLIC, (c) => SOUNDS_LIKE[c.toLowerCase()] ?? c) : word,
    )
    .replace(LOOKS_LIKE_CHARS, (c) => LOOKS_LIKE[c]);
  for (const text of new Set([byLooks, bySounds])) {
    const spelledOut = text.replace(SPELLED_OUT, (run) => run.replace(SEPARATORS, ''));
    for (const candidate of new Set([text, spelledOut])) {
      const [match] = matcher.getAllMatches(candidate, true);
      if (match) return dataset.getPayloadWithPhraseMetadata(match).phraseMetadata?.originalWord;
    }
    const joined = joinedTermIn(text, joinedMatcher);
    if (joined) return joined;
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
