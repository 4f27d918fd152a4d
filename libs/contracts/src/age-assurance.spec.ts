import {
  asksForSexualContent,
  needsAgeAssurance,
  SEXUAL_CONTENT_TAGS,
  SEXUAL_JOINED_WORDS,
  SEXUAL_PROMPT_WORDS,
  sexualTermIn,
} from './age-assurance';
import { buildGenerationRequest, TAG_CATEGORIES } from './tags';

describe('which requests need an age-assured account', () => {
  it('the photo tools always; clone and super resolution never', () => {
    expect(needsAgeAssurance('inpaint')).toBe(true);
    expect(needsAgeAssurance('faceSwap')).toBe(true);
    expect(needsAgeAssurance('faceSwapVideo')).toBe(true);
    expect(needsAgeAssurance('clone')).toBe(false);
    expect(needsAgeAssurance('superResolution')).toBe(false);
  });

  it('Generate when a tag or a prompt word asks for sexual content', () => {
    expect(needsAgeAssurance('generate', { tags: { clothing: 'nude' } })).toBe(true);
    expect(needsAgeAssurance('generate', { tags: { setting: 'strip club' } })).toBe(true);
    expect(needsAgeAssurance('generate', { prompt: 'a Naked adult' })).toBe(true);
    expect(needsAgeAssurance('generate', { tags: { clothing: 'sweater' }, prompt: 'adult, office' })).toBe(
      false,
    );
  });
});

/**
 * Prompts of people without an age check: the sexual ones are refused before anything is charged
 * however they are written; innocent words that contain a sexual term, or look like one, pass.
 * (An output that is sexual anyway is withheld by the content check: docs/age-assurance-and-moderation.md.)
 */
describe('the prompt check: sexual prompts in any spelling, innocent look-alikes pass', () => {
  const refused: [string, string][] = [
    // the finding of issue 52: these passed the whole-word list
    ['nudes of a woman', 'plural'],
    ['full nudity', 'another form of the word'],
    ['woman wearing nothing, unclothed', 'synonyms'],
    ['erotica photo', 'another form of the word'],
    ['n.u.d.e', 'spelled out with dots'],
    // refused before too
    ['NSFW', 'any case'],
    ['a nude woman', 'the plain word'],
    ['adult woman, NAKED, on a beach', 'the plain word'],
    ['topless', 'the plain word'],
    ['sex', 'the plain word'],
    // spacing and punctuation
    ['n u d e', 'spelled out with spaces'],
    ['n-u-d-e', 'spelled out with hyphens'],
    ['n_u_d_e', 'spelled out with underscores'],
    ['N * U * D * E', 'spelled out with stars'],
    ['p o r n', 'spelled out'],
    ['s e x', 'spelled out'],
    ['nu\u200Bde', 'an invisible space inside'],
    ['NAKED!!!', 'punctuation around'],
    ['(nude)', 'brackets around'],
    // leetspeak and repeated letters
    ['nud3', 'leetspeak'],
    ['p0rn', 'leetspeak'],
    ['$exy model', 'leetspeak'],
    ['s3x', 'leetspeak'],
    ['t0pl3ss', 'leetspeak'],
    ['naaaked', 'repeated letters'],
    ['nuuuude', 'repeated letters'],
    // look-alike letters
    ['ρorn', 'a Greek rho'],
    ['nud\u0435', 'a Cyrillic e'],
    ['n\u0430k\u0435d', 'a Cyrillic a and e'],
    ['\uff4e\uff55\uff44\uff45', 'full-width letters'],
    ['n\u00e0ked', 'an accent'],
    ['nu\u0301de', 'a combining accent'],
    // synonyms and other forms
    ['bottomless', 'a synonym'],
    ['undressing her', 'another form of the word'],
    ['woman with no clothes on', 'a phrase'],
    ['without clothing, in bed', 'a phrase'],
    ['sexually suggestive', 'another form of the word'],
    ['sexiest pose', 'another form of the word'],
    ['homoerotic painting', 'inside a longer word'],
    ['pornographic', 'inside a longer word'],
    ['lewd', 'the plain word'],
    ['explicit scene', 'the plain word'],
    ['strippers', 'plural'],
    ['bare-breasted', 'a phrase written with a hyphen'],
    ['nipples', 'plural'],
    ['x-rated', 'a phrase written with a hyphen'],
    ['a woman in lingerie', "one of the Generate screen's sexual tags"],
    ['in a strip club', "one of the Generate screen's sexual tags"],
    // obscenity's English dataset (its sexual terms)
    ['blowjob', "obscenity's dataset"],
    ['boobs', "obscenity's dataset"],
    ['hentai girl', "obscenity's dataset"],
    ['an orgy', "obscenity's dataset"],
    ['nude woman in nude heels', 'an allowed phrase does not hide the rest'],
    // missed before (review of the age gate)
    ['\u03bdude', 'a Greek nu, the letter n (it looks like a v)'],
    ['n\u03b1ked', 'a Greek alpha'],
    ['\u043faked', 'a Cyrillic pe, the letter p, looks like an n'],
    ['n\u03b9pple', 'a Greek iota'],
    ['nu\u180Ede', 'an invisible Mongolian vowel separator inside'],
    ['nu\u115Fde', 'an invisible Hangul filler inside'],
    ['na\u2064ked', 'an invisible operator inside'],
    ['n!u!d!e', 'spelled out with exclamation marks'],
    ['n=u=d=e', 'spelled out with equals signs'],
    ['na ked', 'broken up by a space'],
    ['nu de', 'broken up by a space'],
    ['top-less', 'broken up by a hyphen'],
    ['nip.ples', 'broken up by a dot'],
    ['pr0n', 'leetspeak of a slang spelling'],
    ['nekkid', 'a slang spelling'],
    ['nekid', 'a slang spelling'],
    ['vulva', 'sexual anatomy'],
    ['clitoris', 'sexual anatomy'],
    ['areolas showing', 'sexual anatomy'],
    ['a see-through dress', 'see-through clothing'],
    ['woman without any clothes', 'a phrase'],
    ['with no clothes on', 'a phrase'],
    ['taking her clothes off', 'a phrase'],
    ['in the buff', 'a phrase'],
    ['jizz', "obscenity's dataset (a doubled z)"],
    ['ecchi anime', 'a word'],
    ['a stripper', 'a word (doubled p)'],
    ['nackt', 'German'],
    ['mujer desnuda', 'Spanish'],
    ['femme nue', 'French'],
  ];
  const allowed: [string, string][] = [
    ['Essex', 'contains "sex"'],
    ['Sussex', 'contains "sex"'],
    ['Middlesex', 'contains "sex"'],
    ['Wessex countryside', 'contains "sex"'],
    ['sextant', 'contains "sex"'],
    ['a sexton in a church', 'contains "sex"'],
    ['unisex haircut', 'contains "sex"'],
    ['nudibranch', 'starts like "nude"'],
    ['a woman in a sundress', 'contains "undress"'],
    ['denuded hills', 'contains "nude"'],
    ['nude lipstick', 'a colour of make-up'],
    ['nude heels', 'a colour of shoes'],
    ['bare trees', '"bare" on its own is not sexual'],
    ['a bare wall', '"bare" on its own is not sexual'],
    ['a naked-eye view of Mars', 'astronomy'],
    ['the river snaked through the valley', 'contains "naked"'],
    ['Scunthorpe', "contains one of obscenity's terms"],
    ['cocktail dress', 'starts like "cock"'],
    ['the cockpit of a plane', 'starts like "cock"'],
    ['a peacock', 'ends like "cock"'],
    ['analysis of a painting', 'starts like "anal"'],
    ['a canal in Venice', 'contains "anal"'],
    ['therapist', 'contains "rapist"'],
    ['a bunch of grapes', 'contains "rape"'],
    ['rapeseed field', 'starts like "rape"'],
    ['assassin', 'swearing is not what the gate is about, and this is not even that'],
    ['Dick Van Dyke', 'a name'],
    ['Moby Dick', 'a title'],
    ['Emily Dickinson', 'a name'],
    ['Penistone', 'a town'],
    ['cumin and turmeric', 'starts like "cum"'],
    ['magna cum laude', 'Latin'],
    ['cumulus clouds', 'starts like "cum"'],
    ['a blue tit on a branch', 'a bird'],
    ['Titanic', 'starts like "tit"'],
    ['pussy willow', 'a plant'],
    ['booby trap', 'starts like "boob"'],
    ['Wankel engine', 'starts like "wank"'],
    ['bisexual couple holding hands', 'an orientation, not a request for sexual content'],
    ['shuttlecock', 'ends like "cock"'],
    ['a comic strip', '"strip" on its own'],
    ['latex gloves', 'a material, not the sexual tag'],
    ['the pen is mightier', "obscenity's own whitelist"],
    ['T S Eliot', 'single letters that spell nothing'],
    ['J R R Tolkien', 'single letters that spell nothing'],
    ['what the hell, a damn fine bastard of a dragon', 'swearing, not sexual content'],
    ['adult woman, portrait, office', 'a plain prompt'],
    // false positives of the review: repeated letters squeezed, words without a boundary
    ['an echidna', '"ecchi" squeezed is "echi"'],
    ['echinacea tea', '"ecchi" squeezed is "echi"'],
    ['an echinoderm', '"ecchi" squeezed is "echi"'],
    ['Ponte Vecchio', '"ecchi" squeezed is "echi"'],
    ['a Secchi disk', '"ecchi" squeezed is "echi"'],
    ['in the buffet queue', 'starts like "in the buff"'],
    ['in the buffalo park', 'starts like "in the buff"'],
    ['clothes offered for sale', 'starts like "clothes off"'],
    ['a clothes office', 'starts like "clothes off"'],
    ['the clothes of the king', '"clothes off" with one f'],
    ['congenital heart defect', 'contains "genital"'],
    ['striped bass', 'like "stripper"'],
    ['a striper on a line', 'a fish, "stripper" with one p'],
    ['a second-hand job board', 'contains "hand job"'],
    ['a bottomless pit', 'a phrase'],
    ['bottomless brunch', 'a phrase'],
    ['a naked mole rat', 'an animal'],
    ['naked cake', 'a cake'],
    ['The Naked Gun', 'a title'],
    ['Nudelsuppe', 'German noodle soup'],
    ['a Nudie suit', 'a rhinestone suit'],
    ['heterotic string theory', 'contains "erotic"'],
    ['Kanal Istanbul', "a canal, in obscenity's patterns"],
    ['Pornic harbour', 'a town'],
    ['Semenov', 'a name'],
    ['Slutsky', 'a name'],
    ['Wankhede Stadium', 'a stadium'],
    ['Dildo, Newfoundland', 'a town'],
    ['areolar tissue', 'anatomy, not sexual'],
    // broken-up words must start and end at the parts' edges
    ['menu design', 'joined, contains "nude"'],
    ['a gnu desert', 'joined, contains "nude"'],
    ['a laptop less than 2 cm thick', 'joined, contains "topless"'],
    ['a tank top, less saturated', 'a comma and a space do not join'],
    ['a comic strip per day', 'joined, "stripper"'],
    ['por no tener dinero', 'joined, "porno"'],
    ["it's ex-wife", 'joined, "sex"'],
    ['a see-through umbrella', 'see-through, not clothing'],
    ['a nue yokai', '"nue" alone: a creature of Japanese folklore'],
    ['Москва ночью', 'Cyrillic words'],
    ['a 5 \u03bcm lens', 'a Greek mu'],
  ];

  it.each(refused)('refuses %j (%s)', (prompt) => {
    expect({ prompt, term: sexualTermIn(prompt) }).toEqual({ prompt, term: expect.any(String) });
    expect(needsAgeAssurance('generate', { prompt })).toBe(true);
  });

  it.each(allowed)('allows %j (%s)', (prompt) => {
    expect({ prompt, term: sexualTermIn(prompt) }).toEqual({ prompt, term: undefined });
    expect(needsAgeAssurance('generate', { prompt })).toBe(false);
  });

  it('has at least 40 variants each way', () => {
    expect(refused.length).toBeGreaterThanOrEqual(40);
    expect(allowed.length).toBeGreaterThanOrEqual(40);
  });

  it("finds each of the studio's own words in plain spelling", () => {
    for (const word of SEXUAL_PROMPT_WORDS) {
      const plain = word.replace(/\|/g, '');
      expect({ plain, term: sexualTermIn(`a ${plain} scene`) }).toEqual({ plain, term: expect.any(String) });
    }
  });

  it('finds each of the words that are found broken up, broken in two', () => {
    for (const word of SEXUAL_JOINED_WORDS) {
      const broken = `a ${word.slice(0, 2)} ${word.slice(2)} scene`;
      expect({ broken, term: sexualTermIn(broken) }).toEqual({ broken, term: expect.any(String) });
    }
  });

  it("the Generate screen's sexual tags are refused as tags and as prompt words; every prompt built from the other tags passes", () => {
    for (const [key, values] of Object.entries(SEXUAL_CONTENT_TAGS)) {
      for (const value of values) {
        expect(asksForSexualContent({ tags: { [key]: value } })).toBe(true);
        expect(asksForSexualContent({ prompt: buildGenerationRequest({ [key]: value }).prompt })).toBe(true);
      }
    }
    for (const category of TAG_CATEGORIES) {
      for (const tag of category.tags) {
        if (SEXUAL_CONTENT_TAGS[category.key]?.includes(tag)) continue;
        const { prompt } = buildGenerationRequest({ [category.key]: tag });
        expect({ prompt, term: sexualTermIn(prompt) }).toEqual({ prompt, term: undefined });
      }
    }
  });
});
