/** sRGB <-> CIE Lab (D65) and per-channel statistics transfer (Reinhard et al.). */

const SRGB_TO_LINEAR = new Float32Array(256).map((_, v) => {
  const c = v / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
});

const XN = 0.95047;
const YN = 1;
const ZN = 1.08883;
const EPSILON = 216 / 24389;
const KAPPA = 24389 / 27;

const f = (t: number) => (t > EPSILON ? Math.cbrt(t) : (KAPPA * t + 16) / 116);
const fInverse = (t: number) => (t ** 3 > EPSILON ? t ** 3 : (116 * t - 16) / KAPPA);

/** Lab of an 8-bit sRGB colour, written to out[offset..offset+2]. */
export function rgbToLab(r: number, g: number, b: number, out: Float32Array, offset: number): void {
  const lr = SRGB_TO_LINEAR[r];
  const lg = SRGB_TO_LINEAR[g];
  const lb = SRGB_TO_LINEAR[b];
  const x = f((0.4124564 * lr + 0.3575761 * lg + 0.1804375 * lb) / XN);
  const y = f((0.2126729 * lr + 0.7151522 * lg + 0.072175 * lb) / YN);
  const z = f((0.0193339 * lr + 0.119192 * lg + 0.9503041 * lb) / ZN);
  out[offset] = 116 * y - 16;
  out[offset + 1] = 500 * (x - y);
  out[offset + 2] = 200 * (y - z);
}

const toSrgb = (c: number) => {
  const v = c <= 0.0031308 ? 12.92 * c : 1.055 * Math.max(c, 0) ** (1 / 2.4) - 0.055;
  return Math.min(255, Math.max(0, v * 255));
};

/** 8-bit-range (0..255, unrounded) sRGB of a Lab colour, written to out[offset..offset+2]. */
export function labToRgb(l: number, a: number, b: number, out: Float32Array, offset: number): void {
  const fy = (l + 16) / 116;
  const x = XN * fInverse(fy + a / 500);
  const y = YN * fInverse(fy);
  const z = ZN * fInverse(fy - b / 200);
  out[offset] = toSrgb(3.2404542 * x - 1.5371385 * y - 0.4985314 * z);
  out[offset + 1] = toSrgb(-0.969266 * x + 1.8760108 * y + 0.041556 * z);
  out[offset + 2] = toSrgb(0.0556434 * x - 0.2040259 * y + 1.0572252 * z);
}

export interface ChannelStats {
  mean: [number, number, number];
  std: [number, number, number];
}

/** Mean and standard deviation per channel of 3-channel pixels where `mask[i]` is set. */
export function channelStats(pixels: Float32Array, mask: Uint8Array): ChannelStats {
  const sum = [0, 0, 0];
  const squares = [0, 0, 0];
  let n = 0;
  for (let i = 0; i < mask.length; i++) {
    if (!mask[i]) continue;
    n++;
    for (let c = 0; c < 3; c++) {
      const v = pixels[i * 3 + c];
      sum[c] += v;
      squares[c] += v * v;
    }
  }
  const mean = sum.map((s) => s / Math.max(n, 1)) as [number, number, number];
  const std = squares.map((s, c) => Math.sqrt(Math.max(0, s / Math.max(n, 1) - mean[c] ** 2))) as [
    number,
    number,
    number,
  ];
  return { mean, std };
}
