/**
 * Names the studio speaks as, and the rule that keeps look-alikes of them from being registered
 * (docs/security.md). One list for the backend's registration check and the register form.
 *
 * A name is compared by its skeleton (usernameSkeleton): what it reads as, whatever its case,
 * separators and look-alike characters. It is refused when
 * 1. its skeleton contains a word of RESERVED_NAME_WORDS anywhere (`supportteam`, `sysadmin`,
 *    `admins`, `the.admin`, `aclmin`), once the innocent words of INNOCENT_NAME_WORDS that happen
 *    to contain one (`badminton`, `pinstripe`, `staffan`) are set aside; or
 * 2. the whole name, or one of its `.`/`-`/`_`-separated parts, is made only of words of
 *    RESERVED_USERNAMES and RESERVED_NAME_FILLERS with at least one of the former, trailing
 *    digits aside (`studio`, `studio-support`, `stripe-billing`, `studioteam`, `root2`,
 *    `alice.mod`), so a word too common to refuse inside other words (`studio` in `mystudio`,
 *    `root` in `beetroot`, `mod` in `model`) is refused where it stands as a word of its own.
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
] as const;

/** Words that only add to a reserved word (`studio team`, `the admin`, `support desk`, plurals). */
export const RESERVED_NAME_FILLERS = [
  'the',
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
 * set aside before the check, so `badminton` and `staffan` register, `badminton-admin` does not.
 */
export const INNOCENT_NAME_WORDS = [
  'badminton',
  'madmind',
  'headmind',
  'pinstripe',
  'striped',
  'stripey',
  'stripy',
  'staffan',
  'stafford',
  'staffie',
  'staffy',
  'flagstaff',
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
// Longest first, so an innocent word is set aside whole before a shorter one inside it.
const INNOCENT = skeletons(INNOCENT_NAME_WORDS).sort((a, b) => b.length - a.length);

/** The skeleton with the innocent words replaced by a mark no word contains. */
function withoutInnocentWords(skeleton: string): string {
  let out = skeleton;
  for (const word of INNOCENT) out = out.split(word).join('#');
  return out;
}

/** True when the skeleton is wholly reserved words and fillers, at least one reserved (rule 2). */
function madeOfReservedWords(skeleton: string): boolean {
  // reach[i]: 0 = the first i characters cannot be split into words, 1 = only fillers, 2 = with a reserved word
  const reach = new Array<number>(skeleton.length + 1).fill(0);
  reach[0] = 1;
  for (let end = 1; end <= skeleton.length; end += 1) {
    for (let start = 0; start < end; start += 1) {
      if (!reach[start]) continue;
      const word = skeleton.slice(start, end);
      if (RESERVED.has(word)) reach[end] = 2;
      else if (FILLERS.has(word)) reach[end] = Math.max(reach[end], reach[start]);
    }
  }
  return reach[skeleton.length] === 2;
}

/** Rule 2 for one name or part: as written, and without its trailing digits (`root2`, `studio2024`). */
function readsAsReserved(part: string): boolean {
  const forms = new Set([part, part.replace(/\d+$/, '')].filter(Boolean));
  return [...forms].some((form) => madeOfReservedWords(withoutInnocentWords(usernameSkeleton(form))));
}

/** True when a name reads as the studio's or its staff's (the two rules above). */
export function isReservedUsername(name: string): boolean {
  const skeleton = withoutInnocentWords(usernameSkeleton(name));
  if (CONTAINED.some((word) => skeleton.includes(word))) return true;
  const parts = name.split(SEPARATORS).filter(Boolean);
  return [name.replace(SEPARATORS, ''), ...parts].some(readsAsReserved);
}
