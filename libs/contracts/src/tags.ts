/**
 * The appearance tags of the Generate screen (spec section 2, 'Tag chooser' and 'Generate screen')
 * and how a set of choices becomes the generation request. Shared so the server can check a prompt
 * against the same lists the screen offers.
 */

export interface TagCategory {
  /** The chooser's title, as people see it. */
  title: string;
  /** The config key: the title lower-cased with the spaces removed ('Hair color' -> 'haircolor'). */
  key: string;
  tags: readonly string[];
  /** The start value; categories without one start with a random tag. */
  initial?: string;
}

/** The config key of a chooser titled `title` (spec: named after the title, lower case, no spaces). */
export function tagConfigKey(title: string): string {
  return title.toLowerCase().replace(/\s+/g, '');
}

/** Adult ages only: the prompt never describes anyone younger than 20. */
export const AGE_TAGS = [
  '20 year old',
  '20-30 years old',
  '30-40 years old',
  '40-50 years old',
  '50-60 years old',
  '60-70 years old',
] as const;
export const DEFAULT_AGE_TAG = '20 year old';

const category = (title: string, tags: readonly string[], initial?: string): TagCategory => ({
  title,
  key: tagConfigKey(title),
  tags,
  ...(initial ? { initial } : {}),
});

export const TAG_CATEGORIES: readonly TagCategory[] = [
  category('Body', ['busty', 'beautiful', 'skinny', 'thick', 'chubby', 'fat', 'short', 'tall', 'pregnant']),
  category('Age', AGE_TAGS, DEFAULT_AGE_TAG),
  category('Hair color', ['dark brown', 'blonde', 'brown', 'ginger', 'black']),
  category('Hair style', [
    'straight',
    'bobcut',
    'pigtails',
    'hair bun',
    'pixie',
    'ponytail',
    'messy',
    'bangs',
    'braided',
    'slicked',
  ]),
  category('Clothing', [
    'nude',
    'bathrobe',
    'bikini',
    'blouse and skirt',
    'business suit',
    'cocktail dress',
    'crop top',
    'denim jacket',
    'evening gown',
    'hoodie',
    'jeans and t-shirt',
    'kimono',
    'latex',
    'leather jacket',
    'lingerie',
    'maxi dress',
    'nightgown',
    'one-piece swimsuit',
    'pajamas',
    'sari',
    'sundress',
    'sweater',
    'tank top',
    'trench coat',
    'wedding dress',
    'yoga pants',
  ]),
  category('Eyes', ['blue', 'green', 'brown', 'dark']),
  category('Style', ['full body', 'close up']),
  category('Breast size', ['small', 'medium', 'large', 'huge', 'massive']),
  category('Setting', [
    'bathroom',
    'beach',
    'bedroom',
    'car',
    'gym',
    'hot tub',
    'kitchen',
    'lake',
    'mountains',
    'office',
    'pool',
    'sauna',
    'shower',
    'street',
    'strip club',
    'underwater',
  ]),
  category('Ethnicity', [
    'African',
    'African American',
    'Albanian',
    'Arab',
    'Argentinian',
    'Australian',
    'Brazilian',
    'British',
    'Chinese',
    'Colombian',
    'Cuban',
    'Czech',
    'Danish',
    'Dutch',
    'Egyptian',
    'Ethiopian',
    'Filipina',
    'Finnish',
    'French',
    'German',
    'Greek',
    'Hungarian',
    'Indian',
    'Indonesian',
    'Iranian',
    'Irish',
    'Italian',
    'Jamaican',
    'Japanese',
    'Korean',
    'Latina',
    'Mexican',
    'Moroccan',
    'Native American',
    'Nigerian',
    'Norwegian',
    'Peruvian',
    'Polish',
    'Portuguese',
    'Russian',
    'Spanish',
    'Swedish',
    'Thai',
    'Turkish',
    'Ukrainian',
    'Vietnamese',
  ]),
];

/** One tag per category, by config key. */
export type TagChoices = Record<string, string>;

/** Start values: Age at '20 year old', every other category a random tag. */
export function initialTagChoices(random: () => number = Math.random): TagChoices {
  const choices: TagChoices = {};
  for (const { key, tags, initial } of TAG_CATEGORIES) {
    choices[key] = initial ?? tags[Math.min(tags.length - 1, Math.floor(random() * tags.length))];
  }
  return choices;
}

/** POST /api/generateImage body, without the author. */
export interface GenerationRequest {
  title: string;
  prompt: string;
}

/** The chosen tag of a category if it is one of its tags (anything else is ignored). */
function chosen(choices: Partial<TagChoices>, key: string): string | undefined {
  const value = choices[key];
  const found = TAG_CATEGORIES.find((c) => c.key === key);
  return value && found?.tags.includes(value) ? value : undefined;
}

/**
 * Builds the request from the choices. The title is a short description (age, ethnicity,
 * clothing, setting); the prompt names every chosen tag and always starts by stating an adult
 * age, falling back to '20 year old' when the age is missing or not one of the adult ages.
 * Values that are not in their category's list are left out, so no free text reaches the prompt.
 */
export function buildGenerationRequest(choices: Partial<TagChoices>): GenerationRequest {
  const pick = (key: string) => chosen(choices, key);
  const age = pick('age') ?? DEFAULT_AGE_TAG;
  const ethnicity = pick('ethnicity');
  const clothing = pick('clothing');
  const setting = pick('setting');

  const title = [[age, ethnicity, 'woman'].filter(Boolean).join(' '), clothing, setting]
    .filter(Boolean)
    .join(', ');

  const parts: (string | undefined)[] = [
    'adult woman',
    age,
    ethnicity,
    pick('body') && `${pick('body')} body`,
    pick('haircolor') && `${pick('haircolor')} hair`,
    pick('hairstyle') && `${pick('hairstyle')} hairstyle`,
    pick('eyes') && `${pick('eyes')} eyes`,
    pick('breastsize') && `${pick('breastsize')} breasts`,
    clothing === 'nude' ? 'nude' : clothing && `wearing ${clothing}`,
    setting && `in ${setting}`,
    pick('style') && `${pick('style')} shot`,
    'photorealistic',
    'high detail',
  ];
  return { title, prompt: parts.filter(Boolean).join(', ') };
}
