import { hasControlCharacter, nameProblem, parseWholeNumber } from './input';

describe('parseWholeNumber', () => {
  const range = { min: 1, max: 500 };

  it('reads plain decimal text and safe integers within the range', () => {
    expect(parseWholeNumber('5', range)).toBe(5);
    expect(parseWholeNumber('500', range)).toBe(500);
    expect(parseWholeNumber(42, range)).toBe(42);
    expect(parseWholeNumber('0', { min: 0, max: 3 })).toBe(0);
    expect(parseWholeNumber('-7', { min: -10, max: 10 })).toBe(-7);
  });

  it.each([
    '1e2',
    '0x10',
    ' 5 ',
    '+3',
    '05',
    '2.0',
    '2.5',
    '',
    '-',
    '1_0',
    '٣',
    'Infinity',
    'NaN',
    '0b11',
    '1 0',
  ])('refuses the text %j', (text) => {
    expect(parseWholeNumber(text, { min: -1000, max: 1000 })).toBeNull();
  });

  it('refuses numbers out of range, fractions, unsafe integers and other types', () => {
    expect(parseWholeNumber('501', range)).toBeNull();
    expect(parseWholeNumber('0', range)).toBeNull();
    expect(parseWholeNumber('-3', range)).toBeNull();
    expect(parseWholeNumber('-0', { min: -5, max: 5 })).toBeNull();
    expect(parseWholeNumber(2.5, range)).toBeNull();
    expect(parseWholeNumber(Number.NaN, range)).toBeNull();
    expect(parseWholeNumber(Infinity, { min: 0, max: Infinity })).toBeNull();
    expect(parseWholeNumber(2 ** 53, { min: 0, max: 2 ** 60 })).toBeNull();
    expect(parseWholeNumber('9007199254740993', { min: 0, max: 2 ** 60 })).toBeNull();
    expect(parseWholeNumber(true, range)).toBeNull();
    expect(parseWholeNumber(['5'], range)).toBeNull();
    expect(parseWholeNumber(null, range)).toBeNull();
  });
});

describe('nameProblem', () => {
  it('accepts ordinary names in any script, emoji included', () => {
    for (const name of [
      'Model #1',
      'Été à Paris',
      'שלום',
      'мой альбом',
      '写真 2026',
      'Beach 🏖️',
      'Six Nations 🏴\u{e0067}\u{e0062}\u{e0073}\u{e0063}\u{e0074}\u{e007f}',
      'a\tb'.replace('\t', ' '),
    ]) {
      expect(nameProblem(name)).toBeNull();
    }
  });

  it.each([
    ['NUL', 'a\u0000b', 'control'],
    ['ESC (ANSI colour)', '\u001b[31mred', 'control'],
    ['newline', 'two\nlines', 'control'],
    ['DEL', 'x\u007f', 'control'],
    ['C1 CSI', 'x\u009b31m', 'control'],
    ['line separator', 'a\u2028b', 'control'],
    ['lone surrogate', 'a\ud800b', 'control'],
    ['right-to-left override', 'gpj.\u202eexe', 'bidi'],
    ['left-to-right embedding', '\u202aabc', 'bidi'],
    ['first strong isolate', 'a\u2068b\u2069', 'bidi'],
    ['right-to-left mark', 'a\u200fb', 'bidi'],
    ['arabic letter mark', 'a\u061cb', 'bidi'],
    ['zero-width space', 'ad\u200bmin', 'invisible'],
    ['zero-width joiner', 'a\u200db', 'invisible'],
    ['word joiner', 'a\u2060b', 'invisible'],
    ['byte order mark', '\ufeffname', 'invisible'],
    ['soft hyphen', 'ad\u00admin', 'invisible'],
    ['Hangul filler (a blank-looking name)', '\u3164', 'invisible'],
    ['halfwidth Hangul filler', '\uffa0\uffa0', 'invisible'],
    ['Mongolian vowel separator', 'a\u180eb', 'invisible'],
    ['interlinear annotation', 'a\ufff9hidden\ufffbb', 'invisible'],
    ['tag characters (hidden ASCII)', 'cat\u{e0069}\u{e0067}\u{e006e}', 'invisible'],
    [
      'tags after a flag that are no flag',
      '🏴\u{e0069}\u{e0067}\u{e006e}\u{e006f}\u{e0072}\u{e0065}',
      'invisible',
    ],
  ])('refuses %s', (_label, text, problem) => {
    expect(nameProblem(text)).toBe(problem);
  });
});

describe('hasControlCharacter', () => {
  it.each(['BEL \u0007', 'C1 \u0090', 'ESC \u001b[31m', 'NUL \u0000', 'tab\t', 'line\nbreak', 'DEL \u007f'])(
    'finds the control character in %j',
    (text) => {
      expect(hasControlCharacter(text)).toBe(true);
    },
  );
  it('accepts prompts built from tags and any script', () => {
    expect(hasControlCharacter('20 year old, blonde, Été — שלום 写真 🏖️')).toBe(false);
  });
});
