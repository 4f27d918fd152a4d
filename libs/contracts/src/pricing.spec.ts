import {
  chargeReason,
  clampPacks,
  creditsToDollars,
  quotePacks,
  quoteTool,
  VIDEO_PRICE_RULE,
  videoPriceText,
  videoSwapCost,
} from './pricing';

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

describe('how a video price is made, in words (issue 39)', () => {
  it('writes the steps the formula counts, so the figures add up on the page', () => {
    // "Length 3.0 s" beside a charge of 16 read as a contradiction: 3.04 s is 16 started steps.
    expect(videoPriceText(3.04)).toBe('3.04 s of video = 16 started steps of 0.2 s × 1 credit = 16 credits');
    expect(videoPriceText(1.2)).toBe('1.20 s of video = 6 started steps of 0.2 s × 1 credit = 6 credits');
    expect(VIDEO_PRICE_RULE).toBe('1 credit per started 0.2 s of video (5 a second)');
  });
});

describe('chargeReason', () => {
  it("counts each tool's units in their own words", () => {
    // One 4× upscale billed as 8 megapixels read "Super resolution (8 images)".
    expect(chargeReason('superResolution', 8, 4)).toBe(
      'Super resolution (1 image at 4×, 8 started output megapixels)',
    );
    expect(chargeReason('faceSwapVideo', 3.04)).toBe('Video face swap (3.04 s of video)');
    expect(chargeReason('clone', 3)).toBe('Clones (3 images)');
    expect(chargeReason('faceSwap', 1)).toBe('Face swap (1 image)');
  });
});
