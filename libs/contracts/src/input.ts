/**
 * Strict input rules shared by the API's DTOs and the screens' forms (issue 13): numbers are plain
 * decimal integers, and names people write carry no control, text-direction or invisible characters.
 */

const UNSIGNED = /^(0|[1-9][0-9]*)$/;
const SIGNED = /^(0|-?[1-9][0-9]*)$/;

export interface WholeNumberRange {
  min: number;
  max: number;
}

/**
 * The whole number a field holds, or null when it holds none in the range. Text must be plain
 * decimal digits, with '-' first only when the range allows negatives: no exponent ('1e2'), hex
 * ('0x10'), '+', spaces, leading zeros or fractions. A JSON number must be a safe integer.
 */
export function parseWholeNumber(value: unknown, range: WholeNumberRange): number | null {
  let n: number;
  if (typeof value === 'number') {
    n = value;
  } else if (typeof value === 'string') {
    // 16 characters hold every safe integer with its sign; longer text is no number we take.
    if (value.length > 17 || !(range.min < 0 ? SIGNED : UNSIGNED).test(value)) return null;
    n = Number(value);
  } else {
    return null;
  }
  if (!Number.isSafeInteger(n) || n < range.min || n > range.max) return null;
  return n === 0 ? 0 : n; // never -0
}

/**
 * C0 and C1 control characters (NUL, ESC, DEL, ...) and the line/paragraph separators, which
 * break logs and terminals.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
/** Bidi embeddings, overrides and isolates, and the direction marks: they reorder what is shown. */
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
/**
 * Zero-width spaces and joiners, the word joiner and invisible operators, the BOM; the soft hyphen,
 * the Hangul and Mongolian fillers and separators, the Khmer inherent vowels and the interlinear
 * annotation marks, which show nothing; and the tag characters, which carry hidden ASCII text.
 */
const INVISIBLE =
  // eslint-disable-next-line no-misleading-character-class -- each listed on its own, none combined
  /[\u00ad\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200d\u2060-\u2064\u3164\ufeff\uffa0\ufff9-\ufffb\u{e0000}-\u{e007f}]/u;
/** The one honest use of tag characters: the flags of England, Scotland and Wales (🏴 + tags). */
const SUBDIVISION_FLAG = /\u{1f3f4}[\u{e0030}-\u{e0039}\u{e0061}-\u{e007a}]{1,6}\u{e007f}/gu;
/** A UTF-16 half without its other half: no character at all. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export type NameProblem = 'control' | 'bidi' | 'invisible';

/**
 * What is wrong with a name or title a person wrote (folder titles, batch names, reasons...), or
 * null when it is acceptable. Only the characters are judged; length limits stay with each field.
 */
export function nameProblem(text: string): NameProblem | null {
  if (CONTROL.test(text) || LONE_SURROGATE.test(text)) return 'control';
  if (BIDI.test(text)) return 'bidi';
  if (INVISIBLE.test(text.replace(SUBDIVISION_FLAG, ''))) return 'invisible';
  return null;
}

/**
 * Whether a prompt or tag text holds a C0 or C1 control character (BEL, ESC, NUL, line breaks...)
 * or a line/paragraph separator: they show nothing a person meant to write and reach the engines'
 * prompts and the logs as they are.
 */
export function hasControlCharacter(text: string): boolean {
  return CONTROL.test(text);
}
