import { itemIdFrom } from './content';

const ID = '665f1c2e9b1d4a0012345678';

describe('itemIdFrom', () => {
  it('takes an item id as it is', () => {
    expect(itemIdFrom(ID)).toBe(ID);
    expect(itemIdFrom(`  ${ID.toUpperCase()}\n`)).toBe(ID);
  });

  it('finds the id in a content URL, as a path or absolute, whatever the extension or query', () => {
    expect(itemIdFrom(`/api/content/${ID}.png`)).toBe(ID);
    expect(itemIdFrom(`/api/content/${ID}.mp4`)).toBe(ID);
    expect(itemIdFrom(`/api/content/${ID}`)).toBe(ID);
    expect(itemIdFrom(`https://studio.example.com/api/content/${ID}.jpg?download=1#top`)).toBe(ID);
    expect(itemIdFrom(`http://127.0.0.1:3000/api/content/${ID}.webp`)).toBe(ID);
  });

  it('refuses anything else', () => {
    for (const input of [
      '',
      '   ',
      'not an id',
      ID.slice(1),
      `${ID}0`,
      `/api/content/${ID.slice(2)}.png`,
      `/api/folders/${ID}`,
      `/api/content/${ID}.png/extra`,
      `https://example.com/other/${ID}.png`,
    ]) {
      expect(itemIdFrom(input)).toBeNull();
    }
  });
});
