import { asksForSexualContent, needsAgeAssurance } from './age-assurance';

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

  it('matches whole words only', () => {
    expect(asksForSexualContent({ prompt: 'Essex countryside, sextant' })).toBe(false);
    expect(asksForSexualContent({ prompt: 'sex' })).toBe(true);
  });
});
