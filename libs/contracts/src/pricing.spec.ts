import { clampPacks, creditsToDollars, quotePacks, quoteTool, videoSwapCost } from './pricing';

describe('pricing', () => {
  it('clamps pack counts to whole numbers within 1..50', () => {
    expect(clampPacks(0)).toBe(1);
    expect(clampPacks(-3)).toBe(1);
    expect(clampPacks(2.4)).toBe(2);
    expect(clampPacks(2.5)).toBe(3);
    expect(clampPacks(51)).toBe(50);
    expect(clampPacks(Number.NaN)).toBe(1);
  });

  it('quotes 200 coins and $10 per pack', () => {
    expect(quotePacks(3)).toEqual({ packs: 3, coins: 600, dollars: 30 });
    expect(quotePacks(99)).toEqual({ packs: 50, coins: 10000, dollars: 500 });
  });

  it('converts credits to dollars at 0.05 each', () => {
    expect(creditsToDollars(20)).toBe(1);
    expect(creditsToDollars(3)).toBe(0.15);
  });

  it('bills video by started 0.2 s steps', () => {
    // floor(5 * 0.2 * ceil(d / 0.2)), computed by hand
    expect(videoSwapCost(1)).toBe(5);
    expect(videoSwapCost(1.2)).toBe(6);
    expect(videoSwapCost(1.21)).toBe(7);
    expect(videoSwapCost(0.05)).toBe(1);
    expect(videoSwapCost(29.9)).toBe(150);
    expect(videoSwapCost(30)).toBe(150);
  });
});

describe('quoteTool', () => {
  it('prices each tool from the one table', () => {
    expect(quoteTool('inpaint', 5)).toBe(5);
    expect(quoteTool('clone', 3)).toBe(3);
    expect(quoteTool('superResolution', 1)).toBe(2);
    expect(quoteTool('faceSwapVideo', 1.21)).toBe(7);
  });
  it('charges nothing for nothing', () => {
    expect(quoteTool('inpaint', 0)).toBe(0);
    expect(quoteTool('clone', Number.NaN)).toBe(0);
  });
});
