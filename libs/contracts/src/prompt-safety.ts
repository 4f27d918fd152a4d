/**
 * Refusal of prompts that point at minors (adult content is allowed for adults only). Checked on
 * the server for every generation and inpaint prompt; the screens use it to warn early. Words are
 * matched whole and case-insensitively; ages are refused below 18 in any wording.
 */
const MINOR_WORDS = [
  'child',
  'children',
  'kid',
  'kids',
  'minor',
  'minors',
  'underage',
  'under-age',
  'teen',
  'teens',
  'teenage',
  'teenager',
  'preteen',
  'pre-teen',
  'tween',
  'young girl',
  'young boy',
  'little girl',
  'little boy',
  'schoolgirl',
  'schoolboy',
  'school girl',
  'school boy',
  'loli',
  'lolita',
  'shota',
  'toddler',
  'infant',
  'baby',
  'juvenile',
  'adolescent',
  'pubescent',
  'prepubescent',
  'jailbait',
  'elementary school',
  'middle school',
  'high school student',
  'kindergarten',
  'daughter',
  'son',
];

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/[ -]/g, '[\\s_-]*');
const MINOR_PATTERN = new RegExp(`\\b(?:${MINOR_WORDS.map(escape).join('|')})\\b`, 'i');
/** '15 year old', '15yo', '15-year-old', 'aged 15', 'age: 12', 'fifteen years old' ... */
const NUMBER_AGE =
  /\b(\d{1,2})\s*(?:-|\s)?\s*(?:years?|yrs?|y\.?o\.?)(?:\s*-?\s*old)?\b|\bage[ds]?\s*:?\s*(\d{1,2})\b/gi;
const WORD_AGES = [
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
];
const WORD_AGE = new RegExp(`\\b(?:${WORD_AGES.join('|')})[\\s-]*(?:years?|yrs?)[\\s-]*old\\b`, 'i');

export const ADULT_AGE_MIN = 18;

/** Why a prompt is refused, or null when it may be used. */
export function minorReference(prompt: string): string | null {
  const word = MINOR_PATTERN.exec(prompt);
  if (word) return word[0];
  const spelled = WORD_AGE.exec(prompt);
  if (spelled) return spelled[0];
  for (const match of prompt.matchAll(NUMBER_AGE)) {
    const age = Number(match[1] ?? match[2]);
    if (age < ADULT_AGE_MIN) return match[0];
  }
  return null;
}

/** Every prompt sent to an engine states adult age, whatever the client sent. */
export function withAdultAge(prompt: string): string {
  return /\badult\b/i.test(prompt) ? prompt : `adult, ${prompt}`;
}

export const PromptMessages = {
  refused: 'This prompt is not allowed',
  notConfigured: 'Image generation is not configured',
  promptRequired: 'A prompt is required',
} as const;
