import { RESERVED_USERNAME_PATTERN, USERNAME_MAX } from './limits';

/**
 * Names the studio speaks as, and the rule that keeps look-alikes of them from being registered
 * (docs/security.md). One list for the backend's registration check and the register form.
 *
 * A name is compared by its skeleton (usernameSkeleton): what it reads as, whatever its case,
 * separators and look-alike characters. It is refused when
 * 1. its skeleton contains a word of RESERVED_NAME_WORDS anywhere (`supportteam`, `sysadmin`,
 *    `admins`, `the.admin`, `aclmin`), unless that word lies inside an innocent word of
 *    INNOCENT_NAME_WORDS that stands as a word of its own (`badminton`, `pinstripe`, `staffan`;
 *    see standingInnocentWords: `staffanswers` and `stripedesk` are refused); or
 * 2. the whole name, or one of its `.`/`-`/`_`-separated parts, is made only of words of
 *    RESERVED_USERNAMES and RESERVED_NAME_FILLERS with at least one of the former, leading and
 *    trailing digits aside (`studio`, `studio-support`, `stripe-billing`, `studioteam`, `root2`,
 *    `2studio`, `alice.mod`), so a word too common to refuse inside other words (`studio` in
 *    `mystudio`, `root` in `beetroot`, `mod` in `model`) is refused where it stands as a word of
 *    its own; an innocent word standing as a word of its own is not read as reserved words
 *    (`roots` is not `root` + `s`, but `rootstudio` is `root` + `studio`).
 * A name longer than USERNAME_MAX is not this rule's to judge (the length rule refuses it), nor is
 * a `deleted-` name (RESERVED_USERNAME_PATTERN): each is answered at once, with its own message,
 * so no name's length can make the check slow. Within that length the work is
 * linear in the name's length anyway (each position tries the few word lengths there are).
 * Only registration checks it (there is no rename): existing accounts keep their names.
 */

/** Staff and brand words refused wherever they appear in a name (rule 1). */
export const RESERVED_NAME_WORDS = [
  'admin',
  'administrator',
  'support',
  'moderator',
  'stripe',
  'official',
  'staff',
  'patreon',
  'webmaster',
  'postmaster',
] as const;

/**
 * Names the studio speaks as (ledger actors such as `stripe` and `studio`, the staff roles, the
 * services it talks to): refused as a whole name or a part of one, alone or with fillers (rule 2).
 */
export const RESERVED_USERNAMES = [
  ...RESERVED_NAME_WORDS,
  'root',
  'system',
  'sysadmin',
  'studio',
  'replicate',
  'mod',
  'security',
  'billing',
  'help',
  'helpdesk',
  'owner',
  'anonymous',
  'deleted',
  'moderation',
  'safety',
  'abuse',
  'helpline',
  'noreply',
  'donotreply',
] as const;

/**
 * Words that only add to a reserved word (`studio team`, `the admin`, `support desk`, plurals,
 * `trust and safety`).
 */
export const RESERVED_NAME_FILLERS = [
  'the',
  'and',
  'trust',
  'team',
  'crew',
  'desk',
  'hq',
  'real',
  'ai',
  'app',
  'bot',
  'service',
  'services',
  'info',
  'news',
  'sys',
  'ops',
  'dev',
  'account',
  'accounts',
  'mail',
  'notice',
  'notices',
  'main',
  'center',
  'centre',
  's',
] as const;

/**
 * Ordinary words and names that contain a word of RESERVED_NAME_WORDS (or read as rule 2's words):
 * where one stands as a word of its own (standingInnocentWords), the reserved word inside it does not count,
 * so `badminton`, `staffan` and `john.wagstaff` register; `badminton-admin` and `staffanswers`
 * (staff answers) do not.
 */
export const INNOCENT_NAME_WORDS = [
  'badminton',
  'broadminded',
  'madmind',
  'headmind',
  'pinstripe',
  'striped',
  'stripey',
  'staffan',
  'stafford',
  'staffordshire',
  'staffie',
  'staffy',
  'flagstaff',
  'wagstaff',
  'falstaff',
  'longstaff',
  'bickerstaff',
  'distaff',
  'quarterstaff',
  'supportive',
  'roots',
  'billings',
] as const;

/**
 * One character as a reader may take it. Names are ASCII (USERNAME_PATTERN refuses anything
 * else before this check), so of Unicode TR39's confusables (confusables.txt) only its ASCII
 * entries apply: m → rn, w → vv, d → cl, 0 → o, 1 → l, I and | → l; TR39 maps to these longer
 * forms, so a name that spells them out (`aclmin`, `adrnin`) gets the same skeleton. To them come
 * the digits and signs that read as letters: 3 → e, 4 and @ → a, 5 and $ → s, 7 → t, 8 → b.
 */
const READS_AS: Record<string, string> = {
  m: 'rn',
  w: 'vv',
  d: 'cl',
  '0': 'o',
  '1': 'l',
  i: 'l',
  '|': 'l',
  '3': 'e',
  '4': 'a',
  '@': 'a',
  '5': 's',
  $: 's',
  '7': 't',
  '8': 'b',
};

/** Separators a reader skips (the name's own `.`, `-`, `_`, and any other space or sign). */
const SEPARATORS = /[\s._\-–—·'"]+/g;

/**
 * A name as a reader sees it: lower case, accents and separators gone, each look-alike character
 * as the letters it reads as (READS_AS): `Admin.`, `ad_min`, `adm1n`, `aclmin` and `4dmin` all
 * give the skeleton of `admin`.
 */
export function usernameSkeleton(name: string): string {
  const plain = name.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(SEPARATORS, '');
  let out = '';
  for (const char of plain) out += READS_AS[char] ?? char;
  return out;
}

const skeletons = (words: readonly string[]) => [...new Set(words.map(usernameSkeleton))];
const CONTAINED = skeletons(RESERVED_NAME_WORDS);
const RESERVED = new Set(skeletons(RESERVED_USERNAMES));
const FILLERS = new Set(skeletons(RESERVED_NAME_FILLERS));
const LONGEST_WORD = Math.max(...[...RESERVED, ...FILLERS].map((word) => word.length));

/** Where each occurrence of `word` starts in `text`. */
function occurrences(text: string, word: string): number[] {
  const starts: number[] = [];
  for (let at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + 1)) starts.push(at);
  return starts;
}

/**
 * An innocent word's skeleton, and the stretch of it its reserved words cover (`admin` in
 * `badminton`: the letters before it are its head, `b`; after it its tail, `ton`).
 */
interface InnocentWord {
  word: string;
  coreStart: number;
  coreEnd: number;
}

const INNOCENT: InnocentWord[] = skeletons(INNOCENT_NAME_WORDS).flatMap((word) => {
  let coreStart = word.length;
  let coreEnd = 0;
  for (const reserved of RESERVED) {
    for (const at of occurrences(word, reserved)) {
      coreStart = Math.min(coreStart, at);
      coreEnd = Math.max(coreEnd, at + reserved.length);
    }
  }
  // One without a reserved word in it changes nothing.
  return coreStart < coreEnd ? [{ word, coreStart, coreEnd }] : [];
});

/**
 * A name's skeleton with where its words may begin and end: its start and end, where a separator
 * stood (`badminton_fan`: after `badminton`), and where leading or trailing digits meet letters
 * (`staffan2`). The stretches rule 2 reads: the whole name and each part, each with where its
 * letters begin and end without its leading and trailing digits.
 */
interface ReadName {
  skeleton: string;
  edges: Set<number>;
  /** [start, end) in the skeleton, and [bodyStart, bodyEnd) without leading and trailing digits. */
  stretches: { start: number; end: number; bodyStart: number; bodyEnd: number }[];
}

function readName(name: string): ReadName {
  const chars: string[] = [];
  // offsets[i]: where the i-th character (separators left out) begins in the skeleton
  const offsets: number[] = [];
  const partBounds: [number, number][] = [];
  let skeleton = '';
  for (const part of name.split(SEPARATORS)) {
    if (!part) continue;
    const first = chars.length;
    for (const char of part) {
      offsets.push(skeleton.length);
      chars.push(char);
      skeleton += usernameSkeleton(char);
    }
    partBounds.push([first, chars.length]);
  }
  offsets.push(skeleton.length);
  const stretch = ([from, to]: [number, number]) => {
    const text = chars.slice(from, to).join('');
    const lead = /^\d*/.exec(text)![0].length;
    const trail = lead === text.length ? 0 : /\d*$/.exec(text)![0].length;
    return {
      start: offsets[from]!,
      end: offsets[to]!,
      bodyStart: offsets[from + lead]!,
      bodyEnd: offsets[Math.max(from + lead, to - trail)]!,
    };
  };
  const stretches = [[0, chars.length] as [number, number], ...partBounds].map(stretch);
  const edges = new Set(
    stretches.flatMap(({ start, end, bodyStart, bodyEnd }) => [start, end, bodyStart, bodyEnd]),
  );
  return { skeleton, edges, stretches };
}

/**
 * The innocent words of the name that stand as words of their own, as [start, end) stretches of
 * its skeleton. One stands where a side of it that runs past the reserved word inside it (its head
 * or its tail) meets an edge of the name there (readName): those letters then cannot be read with
 * a neighbour, so the reserved word cannot be read alone. `staffan`, `staffan2`, `badminton`,
 * `badmintonfan` (`b` starts the name), `badminton_fan`, `flagstaff`, `john.wagstaff` stand; in
 * `staffanswers`, `stripedesk`, `rootstudio` or `johnwagstaff` the innocent word's letters past
 * the reserved word run into the next (or last) letters, and the name reads `staff answers`,
 * `stripe desk`, `root studio`, `johnwag staff`.
 */
function standingInnocentWords({ skeleton, edges }: ReadName): [number, number][] {
  const standing: [number, number][] = [];
  for (const { word, coreStart, coreEnd } of INNOCENT) {
    for (const at of occurrences(skeleton, word)) {
      const end = at + word.length;
      const headStands = coreStart > 0 && edges.has(at);
      const tailStands = coreEnd < word.length && edges.has(end);
      if (headStands || tailStands) standing.push([at, end]);
    }
  }
  return standing;
}

/** Rule 1: a word of RESERVED_NAME_WORDS anywhere, but inside a standing innocent word. */
function containsStrongWord(skeleton: string, standing: [number, number][]): boolean {
  return CONTAINED.some((word) =>
    occurrences(skeleton, word).some(
      (at) => !standing.some(([start, end]) => start <= at && at + word.length <= end),
    ),
  );
}

/**
 * True when text[from, to) is wholly reserved words and fillers, at least one reserved (rule 2),
 * and no word of it overlaps a standing innocent word (`roots` is not `root` + `s`). A walk over
 * the positions, each trying the word lengths there are: linear in the length.
 */
function madeOfReservedWords(text: string, from: number, to: number, blocked: boolean[]): boolean {
  // reach[i]: 0 = text[from, from + i) cannot be split into words, 1 = only fillers, 2 = with a reserved word
  const reach = new Uint8Array(to - from + 1);
  reach[0] = 1;
  for (let start = from; start < to; start += 1) {
    const sofar = reach[start - from]!;
    if (!sofar) continue;
    for (let end = start + 1; end <= Math.min(to, start + LONGEST_WORD); end += 1) {
      if (blocked[end - 1]) break;
      const word = text.slice(start, end);
      const at = end - from;
      if (RESERVED.has(word)) reach[at] = 2;
      else if (FILLERS.has(word)) reach[at] = Math.max(reach[at]!, sofar);
    }
  }
  return reach[to - from] === 2;
}

/**
 * Rule 2 on the whole name and on each part, each as written and without its leading or trailing
 * digits (`root2`, `studio2024`, `2studio`, `stud-io-2024`).
 */
function readsAsReserved({ skeleton, stretches }: ReadName, standing: [number, number][]): boolean {
  return stretches.some(({ start, end, bodyStart, bodyEnd }) => {
    const forms: [number, number][] = [
      [start, end],
      [bodyStart, end],
      [start, bodyEnd],
      [bodyStart, bodyEnd],
    ];
    return forms.some(([from, to]) => {
      if (from >= to) return false;
      // The innocent words within this stretch (`roots` of `root_s` is not in its part `root`).
      const blocked = new Array<boolean>(skeleton.length).fill(false);
      for (const [a, b] of standing) if (from <= a && b <= to) blocked.fill(true, a, b);
      return madeOfReservedWords(skeleton, from, to, blocked);
    });
  });
}

/**
 * True when a name reads as the studio's or its staff's (the two rules above). A name longer than
 * USERNAME_MAX is answered false at once: it cannot be registered whatever it reads as (the length
 * rule refuses it, with its own message), and the check must not take longer for a longer name.
 * So is a name of deleted accounts (`deleted-…`, RESERVED_USERNAME_PATTERN), refused with its own
 * message.
 */
export function isReservedUsername(name: string): boolean {
  if (name.length > USERNAME_MAX || !RESERVED_USERNAME_PATTERN.test(name)) return false;
  const read = readName(name);
  const standing = standingInnocentWords(read);
  return containsStrongWord(read.skeleton, standing) || readsAsReserved(read, standing);
}
