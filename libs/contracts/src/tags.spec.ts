import { minorReference } from './prompt-safety';
import {
  AGE_TAGS,
  buildGenerationRequest,
  DEFAULT_AGE_TAG,
  initialTagChoices,
  TAG_CATEGORIES,
  tagConfigKey,
} from './tags';

const choices = {
  body: 'tall',
  age: '30-40 years old',
  haircolor: 'ginger',
  hairstyle: 'ponytail',
  clothing: 'bikini',
  eyes: 'green',
  style: 'full body',
  breastsize: 'medium',
  setting: 'beach',
  ethnicity: 'Japanese',
};

describe('tag categories', () => {
  it('has the spec categories, keyed by the title lower-cased without spaces', () => {
    expect(TAG_CATEGORIES.map((c) => [c.title, c.key])).toEqual([
      ['Body', 'body'],
      ['Age', 'age'],
      ['Hair color', 'haircolor'],
      ['Hair style', 'hairstyle'],
      ['Clothing', 'clothing'],
      ['Eyes', 'eyes'],
      ['Style', 'style'],
      ['Breast size', 'breastsize'],
      ['Setting', 'setting'],
      ['Ethnicity', 'ethnicity'],
    ]);
    expect(tagConfigKey('Hair  Color')).toBe('haircolor');
  });

  it('has complete lists without duplicates; about 26 clothes and 45 ethnicities', () => {
    for (const { tags } of TAG_CATEGORIES) {
      expect(tags.length).toBeGreaterThan(1);
      expect(new Set(tags).size).toBe(tags.length);
    }
    const size = (key: string) => TAG_CATEGORIES.find((c) => c.key === key)!.tags.length;
    expect(size('clothing')).toBe(26);
    expect(size('ethnicity')).toBeGreaterThanOrEqual(45);
    expect(size('setting')).toBe(16);
  });

  it('offers adult ages only', () => {
    for (const age of AGE_TAGS) {
      const youngest = Number(/^(\d+)/.exec(age)![1]);
      expect(youngest).toBeGreaterThanOrEqual(20);
    }
  });
});

describe('initialTagChoices', () => {
  it('starts Age at 20 year old and every other category at a random tag of its list', () => {
    const first = initialTagChoices(() => 0);
    const last = initialTagChoices(() => 0.9999);
    expect(first.age).toBe(DEFAULT_AGE_TAG);
    expect(last.age).toBe(DEFAULT_AGE_TAG);
    for (const { key, tags } of TAG_CATEGORIES.filter((c) => c.key !== 'age')) {
      expect(first[key]).toBe(tags[0]);
      expect(last[key]).toBe(tags[tags.length - 1]);
    }
    expect(initialTagChoices(() => 1).ethnicity).toBe('Vietnamese');
  });
});

describe('buildGenerationRequest', () => {
  it('makes a short title from age, ethnicity, clothing and setting', () => {
    expect(buildGenerationRequest(choices).title).toBe('30-40 years old Japanese woman, bikini, beach');
  });

  it('makes a prompt that starts with an adult age and names every chosen tag', () => {
    const { prompt } = buildGenerationRequest(choices);
    expect(prompt).toBe(
      'adult woman, 30-40 years old, Japanese, tall body, ginger hair, ponytail hairstyle, green eyes, ' +
        'medium breasts, wearing bikini, in beach, full body shot, photorealistic, high detail',
    );
  });

  it('states 20 year old when the age is missing or not an adult age from the list', () => {
    expect(buildGenerationRequest({}).prompt).toBe('adult woman, 20 year old, photorealistic, high detail');
    expect(buildGenerationRequest({}).title).toBe('20 year old woman');
    for (const age of ['18 year old', 'teen', '', 'young']) {
      const request = buildGenerationRequest({ ...choices, age });
      expect(request.prompt.startsWith('adult woman, 20 year old, ')).toBe(true);
      expect(request.title.startsWith('20 year old ')).toBe(true);
    }
  });

  it('leaves out values that are not in their list, so no free text reaches the prompt', () => {
    const { prompt, title } = buildGenerationRequest({
      ...choices,
      clothing: 'school uniform',
      setting: 'classroom, child',
      ethnicity: 'Martian',
    });
    expect(prompt).not.toMatch(/school|classroom|child|Martian/);
    expect(title).toBe('30-40 years old woman');
  });

  it('says nude instead of wearing nude', () => {
    expect(buildGenerationRequest({ clothing: 'nude' }).prompt).toContain(', nude,');
  });

  it('never builds a prompt the server would refuse as pointing at minors', () => {
    for (const { key, tags } of TAG_CATEGORIES) {
      for (const tag of tags) {
        const { prompt, title } = buildGenerationRequest({ ...choices, [key]: tag });
        expect([tag, minorReference(prompt), minorReference(title)]).toEqual([tag, null, null]);
      }
    }
  });

  it('builds a valid request from any random start', () => {
    for (let i = 0; i < 20; i++) {
      const { prompt, title } = buildGenerationRequest(initialTagChoices());
      expect(prompt.startsWith('adult woman, 20 year old, ')).toBe(true);
      expect(title.length).toBeGreaterThan(0);
    }
  });
});
