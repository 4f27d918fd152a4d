import { TOOL_LABELS } from './jobs';
import type { JobTool } from './tools';
import { plural } from './messages';

/**
 * Prices and money rules from the spec (section 9). Written once here; backend and frontend
 * both import them so a price can never disagree between the screen and the ledger.
 */

/** The coin product's fixed identifier, sent by the top-up screen as coin_id. */
export const COIN_PRODUCT_ID = 'coins-200';

/** Coins credited per pack bought through Stripe. */
export const COINS_PER_PACK = 200;
/** Price of one pack in US dollars. */
export const PACK_PRICE_USD = 10;
/** Price of one pack in cents, as Stripe wants it. */
export const PACK_PRICE_CENTS = PACK_PRICE_USD * 100;
export const PACKS_MIN = 1;
export const PACKS_MAX = 50;

/** Dollar equivalent of one credit on the admin screens. */
export const DOLLARS_PER_CREDIT = 0.05;

/** Clamp a pack count typed by a person to a whole number within 1..50. */
export function clampPacks(value: number): number {
  if (!Number.isFinite(value)) return PACKS_MIN;
  return Math.min(PACKS_MAX, Math.max(PACKS_MIN, Math.round(value)));
}

export interface PackQuote {
  packs: number;
  coins: number;
  dollars: number;
}

export function quotePacks(packs: number): PackQuote {
  const clamped = clampPacks(packs);
  return { packs: clamped, coins: clamped * COINS_PER_PACK, dollars: clamped * PACK_PRICE_USD };
}

/** Dollar equivalent of a number of credits, rounded to cents. */
export function creditsToDollars(credits: number): number {
  return Math.round(credits * DOLLARS_PER_CREDIT * 100) / 100;
}

/** Seconds per billed step of video, and credits per second, in the video swap formula. */
export const VIDEO_STEP_SECONDS = 0.2;
export const VIDEO_CREDITS_PER_SECOND = 5;

/** Video face swap cost: floor(5 * 0.2 * ceil(duration / 0.2)) credits (spec section 9). */
export function videoSwapCost(durationSeconds: number): number {
  return Math.floor(VIDEO_CREDITS_PER_SECOND * VIDEO_STEP_SECONDS * videoSwapSteps(durationSeconds));
}

/**
 * Billed steps of a video: its length in started 0.2 s steps (as videoSwapCost counts them). The
 * step count is rounded to 6 decimals first so 1.2 / 0.2 = 5.999999 is not billed as 6 steps.
 */
export function videoSwapSteps(durationSeconds: number): number {
  return Math.ceil(Number((durationSeconds / VIDEO_STEP_SECONDS).toFixed(6)));
}

/** Credits one billed step of video costs (1: 5 credits a second, 0.2 s a step). */
export const VIDEO_CREDITS_PER_STEP = VIDEO_CREDITS_PER_SECOND * VIDEO_STEP_SECONDS;

/** The video price rule in words, for the tool's header: "1 credit per started 0.2 s of video". */
export const VIDEO_PRICE_RULE = `${plural(VIDEO_CREDITS_PER_STEP, 'credit')} per started ${VIDEO_STEP_SECONDS} s of video (${VIDEO_CREDITS_PER_SECOND} a second)`;

/**
 * How a video's price is made, from the same formula as videoSwapCost: "3.04 s of video = 16
 * started steps of 0.2 s × 1 credit = 16 credits". The length keeps two decimals, so the steps
 * can be counted from what is written.
 */
export function videoPriceText(durationSeconds: number): string {
  const steps = videoSwapSteps(durationSeconds);
  const seconds = Math.round(durationSeconds * 100) / 100;
  return `${seconds.toFixed(2)} s of video = ${plural(steps, 'started step')} of ${VIDEO_STEP_SECONDS} s × ${plural(VIDEO_CREDITS_PER_STEP, 'credit')} = ${plural(videoSwapCost(durationSeconds), 'credit')}`;
}

/**
 * Credits per unit of each tool: the one price table. The spec fixes inpainting at one credit per
 * output image and the video swap formula; the others are our choice, kept in line with them.
 */
export const TOOL_PRICES = {
  /** per generated image */
  generate: 1,
  /** per output image (spec section 9) */
  inpaint: 1,
  /** per noise-altered copy (the spec's clone screen checks amount against the balance) */
  clone: 1,
  /** per started output megapixel of a super resolution (superResolutionUnits) */
  superResolution: 2,
  /** per swapped image */
  faceSwap: 1,
} as const;
export type PricedTool = keyof typeof TOOL_PRICES | 'faceSwapVideo';

/** The factors a user can choose for super resolution. */
export const SUPER_RESOLUTION_SCALES = [2, 4] as const;
export type SuperResolutionScale = (typeof SUPER_RESOLUTION_SCALES)[number];
/** Output pixels in one billed unit of super resolution: a megapixel of 1024 x 1024. */
export const SUPER_RESOLUTION_UNIT_PIXELS = 1024 * 1024;

/**
 * Billed units of a super resolution: the output's started megapixels, at least one. The price is
 * per output pixel (issue 16: what the user receives), not per unit of work: the local model runs at
 * the input's size for both factors (2x is its 4x scaled down), so 2x and 4x of one image take
 * about the same CPU time (68 s each for a 1024 px input on the 2-core test machine).
 * `width` and `height` are the input's after it is fitted within IMAGE_SIDE_MAX.
 */
export function superResolutionUnits(width: number, height: number, scale: SuperResolutionScale): number {
  const pixels = Math.max(1, width) * Math.max(1, height) * scale * scale;
  return Math.max(1, Math.ceil(pixels / SUPER_RESOLUTION_UNIT_PIXELS));
}

/** What a request costs before anything is queued. `units` is images, or seconds for video. */
export function quoteTool(tool: PricedTool, units: number): number {
  if (!Number.isFinite(units) || units <= 0) return 0;
  if (tool === 'faceSwapVideo') return videoSwapCost(units);
  return TOOL_PRICES[tool] * Math.ceil(units);
}

/**
 * What a job's charge says in the credit history: the tool and its billed units in their own
 * words (a super resolution's units are output megapixels, a video's are seconds, not images).
 */
export function chargeReason(tool: JobTool, units: number, scale?: number): string {
  const label = TOOL_LABELS[tool];
  if (tool === 'superResolution') {
    const factor = scale ? ` at ${scale}×` : '';
    return `${label} (1 image${factor}, ${plural(units, 'started output megapixel')})`;
  }
  if (tool === 'faceSwapVideo') return `${label} (${(Math.round(units * 100) / 100).toFixed(2)} s of video)`;
  return `${label} (${plural(units, 'image')})`;
}
