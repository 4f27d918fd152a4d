import { minorReference, withAdultAge } from './prompt-safety';

describe('prompt safety', () => {
  it.each([
    'a teen girl at the beach',
    'Schoolgirl outfit, classroom',
    'young-girl portrait',
    '15 year old woman',
    '16yo, bikini',
    'woman aged 12',
    'age: 9, smiling',
    'fifteen years old model',
    'LOLI style',
    'little boy playing',
    'a 17-year-old',
  ])('refuses %p', (prompt) => {
    expect(minorReference(prompt)).not.toBeNull();
  });

  it.each([
    'adult woman, 20 year old, red hair, beach',
    '35 years old man in a suit',
    'aged 45, office',
    'mature woman, 60 year old',
    'sonnet by the sea', // "son" only as a whole word
  ])('allows %p', (prompt) => {
    expect(minorReference(prompt)).toBeNull();
  });

  it('states adult age in every prompt', () => {
    expect(withAdultAge('woman, red hair')).toBe('adult, woman, red hair');
    expect(withAdultAge('adult woman, red hair')).toBe('adult woman, red hair');
  });
});
