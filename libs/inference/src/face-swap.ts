import Delaunator from 'delaunator';
import sharp from 'sharp';
import { channelStats, labToRgb, rgbToLab } from './colour';
import type { DetectedFace, Point } from './face-analyzer';
import { FACE_OVAL, boundsOf, centroid, convexHull, fillConvexPolygon, offsetPolygon } from './geometry';
import type { RgbImage } from './image-io';
import { membrane } from './membrane';
import { MESH_MIRROR } from './mesh-symmetry';

/** Knobs of the swap; sizes are fractions of the face size (square root of the face oval's area). */
export interface SwapTuning {
  /**
   * The warped area reaches this far beyond the face oval (a ring of points extrapolated from the
   * oval's centre), so the face's outline comes from the source too.
   */
  expand: number;
  /** The blend mask is the face oval moved in by this much (negative: out). */
  erode: number;
  /** Gaussian sigma of the mask's feathering. */
  feather: number;
  /** Colour statistics are taken inside the face oval moved in by this much (skin, eyes, mouth). */
  statsErode: number;
  /** Strength of the colour transfer, 0..1. */
  colour: number;
  /**
   * Bounds of the ratio of standard deviations in the colour transfer. At most 1: contrast is
   * never raised, so the source's make-up (dark eye areas, red lips) cannot be amplified.
   */
  stdRatio: [number, number];
  /** Poisson (membrane) correction so the face meets the target's colours and light at its edge. */
  poisson: boolean;
  /**
   * When eye or mouth openness (gap over face height) differs by more than this, the target's own
   * eyes or mouth are kept (with `keepWeight`) instead of a warped closed/open one.
   */
  expressionGap: number;
  /** How much of the target shows through a kept eye or mouth area, 0..1. */
  keepWeight: number;
  /**
   * How much of the forehead above the brows the blend mask takes from the source, 0..1: the
   * source's hair often covers its forehead and temples, and pasted it shows as dark patches.
   */
  forehead: number;
  /**
   * How far the target's face shape is moved towards the source's (0: the target's shape, the
   * source's texture only; 1: the source's shape, aligned by a similarity transform). A face
   * recogniser reads the shape as much as the skin: without it the result is a blend of both.
   * Scaled down as the two poses differ (a turned face's 2-D shape is not its identity).
   */
  shape: number;
  /**
   * Turned heads: where the source's face is turned away (its mesh triangle is much smaller than
   * the same triangle of its mirror image), the warp takes that part from the mirrored source, the
   * side the source shows. Off for near-frontal sources (MIRROR_MIN_YAW).
   */
  mirror: boolean;
  /**
   * The mirror is chosen per side of the face's midline (the side where most of the area would
   * come from it takes all of it from it) rather than per triangle, which left a patchwork of the
   * two sides' light.
   */
  mirrorSides: boolean;
  /**
   * The membrane correction leaves out boundary pixels whose difference (target minus warped face,
   * CIE76 ΔE in Lab) is farther than this from the boundary's median difference (or 2.5 times the
   * median deviation, whichever is larger): hair or a hand crossing the edge would otherwise spread
   * its dark colour into the cheek. 0: every boundary pixel counts.
   */
  boundaryOutlier: number;
  /**
   * Keeps the target's occluders (hair, hands, glasses over the face): target pixels in the blend
   * area farther than this (Mahalanobis distance in Lab) from a skin model fitted on the target's
   * own inner face, joined to the blend area's edge, and not on an eye, brow, nose or mouth, are
   * left as they are. 0: off.
   */
  occluders: number;
  /**
   * The same for the source's occluders (its hair over its forehead or cheek): there the target
   * is kept rather than the source's hair pasted. 0: off.
   */
  sourceOccluders: number;
  /**
   * How much of the target face's large-scale shading (its lightness blurred over the skin,
   * sigma `shadingSigma` of the face size) replaces the source's, 0..1: a flat-lit source on a
   * side-lit target otherwise reads as a pale patch.
   */
  shading: number;
  shadingSigma: number;
  /**
   * The source's specular highlights: lightness (Lab L) more than this above the face's local
   * lightness (blurred over 6 % of the face size) is compressed to 30 %, outside the eyes. 0: off.
   */
  highlights: number;
}

/**
 * Tuned on the fixtures (see local-engine.spec.ts): a wider warp and a mask slightly beyond the oval
 * carry more of the source's identity than the inner face alone.
 */
export const DEFAULT_SWAP_TUNING: SwapTuning = {
  expand: 0.12,
  erode: 0.04,
  feather: 0.025,
  statsErode: 0.05,
  colour: 1,
  stdRatio: [0.6, 1],
  poisson: true,
  expressionGap: 0.025,
  keepWeight: 0.85,
  forehead: 0.4,
  shape: 1,
  mirror: true,
  mirrorSides: true,
  boundaryOutlier: 12,
  occluders: 4,
  sourceOccluders: 4,
  shading: 0,
  shadingSigma: 0.08,
  highlights: 5,
};

const BROWS = [70, 63, 105, 66, 107, 336, 296, 334, 293, 300];

/** MediaPipe face mesh points: eye and lip outlines, inner lip and lid midpoints, nose tip, cheeks. */
const LEFT_EYE = [33, 7, 163, 144, 145, 153, 154, 155, 133, 173, 157, 158, 159, 160, 161, 246];
const RIGHT_EYE = [263, 249, 390, 373, 374, 380, 381, 382, 362, 398, 384, 385, 386, 387, 388, 466];
const LIPS = [61, 146, 91, 181, 84, 17, 314, 405, 321, 375, 291, 409, 270, 269, 267, 0, 37, 39, 40, 185];
const NOSE_TIP = 1;
const CHEEK_LEFT = 234;
const CHEEK_RIGHT = 454;

const gap = (l: readonly Point[], a: number, b: number) => Math.hypot(l[a][0] - l[b][0], l[a][1] - l[b][1]);

/**
 * A yaw figure from 2-D landmarks, -1..1 (0: frontal): where the nose tip sits between the two
 * cheek edges. The test faces: frontal ones -0.2..0.25, three-quarter views 0.6..0.7.
 */
export function yawOf(face: DetectedFace): number {
  const l = face.landmarks;
  const left = gap(l, NOSE_TIP, CHEEK_LEFT);
  const right = gap(l, NOSE_TIP, CHEEK_RIGHT);
  return (left - right) / Math.max(left + right, 1e-6);
}

/** yawOf as an angle in degrees (the figure is about the sine of the head's yaw). */
export function yawDegreesOf(face: DetectedFace): number {
  return (Math.asin(Math.max(-1, Math.min(1, yawOf(face)))) * 180) / Math.PI;
}

/** Mouth and eye openness: inner gaps over the face's height (forehead to chin). */
export function expressionOf(face: DetectedFace): { mouth: number; eyes: number } {
  const l = face.landmarks;
  const height = Math.max(gap(l, 10, 152), 1e-6);
  return { mouth: gap(l, 13, 14) / height, eyes: (gap(l, 159, 145) + gap(l, 386, 374)) / 2 / height };
}

/**
 * Largest yaw difference (yawOf) between source and target that a swap accepts: at 0.54 (a frontal
 * face onto a three-quarter view, in the quality benchmark) the output was a ghost over the hair.
 */
export const MAX_YAW_DIFFERENCE = 0.45;

/**
 * Puts the source face onto the target face: the source pixels are warped triangle by triangle
 * (Delaunay triangulation of the target's 468 landmarks plus a ring around them, affine per
 * triangle, bilinear sampling), colour-matched to the target face in Lab, and alpha-blended through
 * a feathered mask of the face oval. Returns a new image of the target's size.
 */
export async function swapFace(
  source: RgbImage,
  sourceFace: DetectedFace,
  target: RgbImage,
  targetFace: DetectedFace,
  tuning: SwapTuning = DEFAULT_SWAP_TUNING,
): Promise<RgbImage> {
  const originalTarget = targetFace;
  targetFace = { ...targetFace, landmarks: reshaped(sourceFace, targetFace, tuning.shape) };
  const oval = convexHull(FACE_OVAL.map((i) => targetFace.landmarks[i]));
  const faceSize = Math.sqrt(polygonArea(oval));
  const tl = withRing(targetFace.landmarks, tuning.expand);
  const sl = withRing(sourceFace.landmarks, tuning.expand);
  const [x0, y0, x1, y1] = boundsOf(tl, 1, target.width, target.height);
  const region: Region = { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
  if (region.w < 2 || region.h < 2 || faceSize < 2) return { ...target, data: new Uint8Array(target.data) };

  const warped = new Float32Array(region.w * region.h * 3);
  const covered = new Uint8Array(region.w * region.h);
  const mirror =
    tuning.mirror && Math.abs(yawDegreesOf(sourceFace)) > MIRROR_MIN_YAW
      ? mirrored(source, sourceFace, tuning.expand)
      : undefined;
  warpTriangles(source, sl, tl, region, warped, covered, mirror, tuning.mirrorSides);

  // The blend mask: the face oval, moved in (or out) by `erode`; its feathered edge fades out
  // within the warped area.
  const mask = new Uint8Array(region.w * region.h);
  fillConvexPolygon(
    offsetPolygon(lowerForehead(oval, targetFace, tuning.forehead), tuning.erode * faceSize),
    mask,
    region.w,
    region.h,
    region.x,
    region.y,
  );
  for (let i = 0; i < mask.length; i++) if (!covered[i]) mask[i] = 0;

  // Colour statistics come from the inner face only (skin, eyes, mouth), not hair or background.
  const inner = new Uint8Array(region.w * region.h);
  fillConvexPolygon(
    offsetPolygon(oval, tuning.statsErode * faceSize),
    inner,
    region.w,
    region.h,
    region.x,
    region.y,
  );
  for (let i = 0; i < inner.length; i++) if (!covered[i]) inner[i] = 0;
  // Skin only: eyes and lips (make-up) would pull the statistics.
  for (const part of [LEFT_EYE, RIGHT_EYE, LIPS]) {
    const hull = convexHull(part.map((k) => targetFace.landmarks[k]));
    const cut = new Uint8Array(region.w * region.h);
    fillConvexPolygon(offsetPolygon(hull, -0.03 * faceSize), cut, region.w, region.h, region.x, region.y);
    for (let i = 0; i < inner.length; i++) if (cut[i]) inner[i] = 0;
  }
  // Skin colour models of the target and of the warped source: occluders (the target's hair or
  // hand, the source's hair) are neither skin statistics nor face.
  const far = occludersFar(target, warped, region, covered, inner, tuning);
  if (far) for (let i = 0; i < inner.length; i++) if (far[i]) inner[i] = 0;
  let eyes: Uint8Array | null = null;
  if (tuning.highlights > 0) {
    eyes = new Uint8Array(region.w * region.h);
    for (const part of [LEFT_EYE, RIGHT_EYE]) {
      const hull = convexHull(part.map((k) => targetFace.landmarks[k]));
      fillConvexPolygon(offsetPolygon(hull, -0.02 * faceSize), eyes, region.w, region.h, region.x, region.y);
    }
  }
  matchColours(warped, covered, target, region, inner, tuning, faceSize, eyes);

  const soft = await sharp(mask, { raw: { width: region.w, height: region.h, channels: 1 } })
    .blur(Math.max(0.5, tuning.feather * faceSize))
    .extractChannel(0) // sharp would otherwise give 3 channels
    .raw()
    .toBuffer();
  if (tuning.poisson) poissonCorrect(warped, mask, covered, target, region, tuning.boundaryOutlier, far);
  const keep = await keptFeatures(sourceFace, targetFace, region, faceSize, tuning);
  const occluded = far
    ? await targetOccluders(far, region, covered, soft, [originalTarget, targetFace], faceSize)
    : null;
  const out = new Uint8Array(target.data);
  const clamped = new Uint8ClampedArray(out.buffer);
  for (let y = 0; y < region.h; y++) {
    for (let x = 0; x < region.w; x++) {
      const i = y * region.w + x;
      if (!covered[i] || !soft[i]) continue;
      const alpha =
        (soft[i] / 255) *
        (1 - (keep ? (keep[i] / 255) * tuning.keepWeight : 0)) *
        (1 - (occluded ? occluded[i] / 255 : 0));
      const o = ((region.y + y) * target.width + region.x + x) * 3;
      for (let c = 0; c < 3; c++) clamped[o + c] = out[o + c] + alpha * (warped[i * 3 + c] - out[o + c]);
    }
  }
  return { data: out, width: target.width, height: target.height };
}

/**
 * Gradient-domain blending (Pérez et al.) in its membrane form: the difference between the target
 * and the warped face just outside the mask is spread smoothly (a harmonic function, membrane.ts)
 * over the inside and added to the warped face, so its colours and light meet the target's at the
 * edge while its own gradients (the features) are kept.
 */
function poissonCorrect(
  warped: Float32Array,
  mask: Uint8Array,
  covered: Uint8Array,
  target: RgbImage,
  region: Region,
  outlier: number,
  far: Uint8Array | null,
): void {
  const known = new Uint8Array(mask.length);
  const values = new Float32Array(warped.length);
  for (let y = 0; y < region.h; y++) {
    for (let x = 0; x < region.w; x++) {
      const i = y * region.w + x;
      // Only skin on both sides tells the face's light: hair or a hand at the edge does not.
      if (mask[i] || !covered[i] || far?.[i]) continue;
      known[i] = 1;
      const o = ((region.y + y) * target.width + region.x + x) * 3;
      for (let c = 0; c < 3; c++) values[i * 3 + c] = target.data[o + c] - warped[i * 3 + c];
    }
  }
  if (outlier > 0) dropOutliers(warped, known, target, region, outlier);
  const correction = membrane(region.w, region.h, mask, known, values);
  for (let i = 0; i < warped.length; i++) warped[i] += correction[i];
}

/**
 * Leaves out of `known` the boundary pixels whose Lab difference (target minus warped) lies far
 * from the boundary's median difference: an occluder (the target's hair or hand, the source's hair)
 * crossing the edge, whose colour the membrane would otherwise carry into the face.
 */
function dropOutliers(
  warped: Float32Array,
  known: Uint8Array,
  target: RgbImage,
  region: Region,
  threshold: number,
): void {
  const indexes: number[] = [];
  for (let i = 0; i < known.length; i++) if (known[i]) indexes.push(i);
  if (indexes.length < 16) return;
  const diffs = new Float32Array(indexes.length * 3);
  const t = new Float32Array(3);
  const w = new Float32Array(3);
  indexes.forEach((i, k) => {
    const x = i % region.w;
    const y = (i - x) / region.w;
    const o = ((region.y + y) * target.width + region.x + x) * 3;
    rgbToLab(target.data[o], target.data[o + 1], target.data[o + 2], t, 0);
    const r = (v: number) => Math.min(255, Math.max(0, Math.round(v)));
    rgbToLab(r(warped[i * 3]), r(warped[i * 3 + 1]), r(warped[i * 3 + 2]), w, 0);
    for (let c = 0; c < 3; c++) diffs[k * 3 + c] = t[c] - w[c];
  });
  const centre = [0, 1, 2].map((c) => medianOf(indexes.map((_, k) => diffs[k * 3 + c])));
  const distance = indexes.map((_, k) =>
    Math.hypot(diffs[k * 3] - centre[0], diffs[k * 3 + 1] - centre[1], diffs[k * 3 + 2] - centre[2]),
  );
  const limit = Math.max(threshold, 2.5 * medianOf(distance));
  indexes.forEach((i, k) => {
    if (distance[k] > limit) known[i] = 0;
  });
}

function medianOf(values: number[]): number {
  const sorted = Float64Array.from(values).sort();
  return sorted[sorted.length >> 1];
}

/** Eye with brow, the other eye with brow, nose, mouth: never taken for an occluder. */
const FEATURE_AREAS = [
  [...LEFT_EYE, 70, 63, 105, 66, 107, 46, 53, 52, 65, 55],
  [...RIGHT_EYE, 336, 296, 334, 293, 300, 276, 283, 282, 295, 285],
  [1, 2, 4, 5, 48, 64, 97, 98, 278, 294, 326, 327, 168, 6, 197, 195],
  LIPS,
];

/**
 * The region's pixels where the target (`occluders`) or the warped source (`sourceOccluders`) is
 * far (Mahalanobis distance over the knob) from a skin colour model fitted on its own inner face
 * `sample`; null when both are off.
 */
function occludersFar(
  target: RgbImage,
  warped: Float32Array,
  region: Region,
  covered: Uint8Array,
  sample: Uint8Array,
  tuning: SwapTuning,
): Uint8Array | null {
  if (!(tuning.occluders > 0) && !(tuning.sourceOccluders > 0)) return null;
  const n = region.w * region.h;
  const far = new Uint8Array(n);
  const lab = new Float32Array(n * 3);
  const mark = (limit: number) => {
    const skin = skinModel(lab, sample);
    if (!skin) return;
    for (let i = 0; i < n; i++) {
      if (covered[i] && skin.distance2(lab[i * 3], lab[i * 3 + 1], lab[i * 3 + 2]) > limit ** 2) far[i] = 1;
    }
  };
  if (tuning.occluders > 0) {
    for (let y = 0; y < region.h; y++) {
      for (let x = 0; x < region.w; x++) {
        const o = ((region.y + y) * target.width + region.x + x) * 3;
        rgbToLab(target.data[o], target.data[o + 1], target.data[o + 2], lab, (y * region.w + x) * 3);
      }
    }
    mark(tuning.occluders);
  }
  if (tuning.sourceOccluders > 0) {
    const r = (v: number) => Math.min(255, Math.max(0, Math.round(v)));
    for (let i = 0; i < n; i++) {
      if (covered[i]) rgbToLab(r(warped[i * 3]), r(warped[i * 3 + 1]), r(warped[i * 3 + 2]), lab, i * 3);
    }
    mark(tuning.sourceOccluders);
  }
  return far;
}

/**
 * A soft mask (0..255) of the occluders inside the blend area (where the target is kept): pixels
 * `far` from the skin colour, joined to the blend area's fading outer edge (hair and hands come in from
 * outside; a shadow or a mole inside the face does not count), and off the eyes, brows, nose and
 * mouth of both the target and the reshaped target.
 */
async function targetOccluders(
  far: Uint8Array,
  region: Region,
  covered: Uint8Array,
  soft: Buffer,
  faces: DetectedFace[],
  faceSize: number,
): Promise<Buffer> {
  const n = region.w * region.h;
  const features = new Uint8Array(n);
  for (const face of faces) {
    for (const part of FEATURE_AREAS) {
      const hull = convexHull(part.map((k) => face.landmarks[k]));
      fillConvexPolygon(
        offsetPolygon(hull, -0.03 * faceSize),
        features,
        region.w,
        region.h,
        region.x,
        region.y,
      );
    }
  }
  const candidate = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (far[i] && covered[i] && soft[i] && !features[i]) candidate[i] = 1;
  // Flood from the candidates on the blend area's fading edge.
  const occluded = new Uint8Array(n);
  const stack: number[] = [];
  for (let i = 0; i < n; i++) {
    if (candidate[i] && soft[i] < 128) {
      occluded[i] = 255;
      stack.push(i);
    }
  }
  while (stack.length) {
    const i = stack.pop()!;
    const x = i % region.w;
    for (const j of [x > 0 ? i - 1 : -1, x < region.w - 1 ? i + 1 : -1, i - region.w, i + region.w]) {
      if (j < 0 || j >= n || occluded[j] || !candidate[j]) continue;
      occluded[j] = 255;
      stack.push(j);
    }
  }
  return sharp(occluded, { raw: { width: region.w, height: region.h, channels: 1 } })
    .blur(Math.max(0.5, 0.01 * faceSize))
    .extractChannel(0)
    .raw()
    .toBuffer();
}

/**
 * A Gaussian skin colour model in Lab from the pixels of `sample`: started at the per-channel
 * median, fitted on the two thirds of the pixels nearest to it.
 */
function skinModel(
  lab: Float32Array,
  sample: Uint8Array,
): { distance2: (l: number, a: number, b: number) => number } | null {
  const indexes: number[] = [];
  for (let i = 0; i < sample.length; i++) if (sample[i]) indexes.push(i);
  if (indexes.length < 50) return null;
  const centre = [0, 1, 2].map((c) => medianOf(indexes.map((i) => lab[i * 3 + c])));
  const near = indexes
    .map((i) => ({
      i,
      d: Math.hypot(lab[i * 3] - centre[0], lab[i * 3 + 1] - centre[1], lab[i * 3 + 2] - centre[2]),
    }))
    .sort((p, q) => p.d - q.d)
    .slice(0, Math.ceil((indexes.length * 2) / 3))
    .map((p) => p.i);
  const mean = [0, 1, 2].map((c) => near.reduce((s, i) => s + lab[i * 3 + c], 0) / near.length);
  const cov = [0, 0, 0, 0, 0, 0, 0, 0, 0];
  for (const i of near) {
    for (let r = 0; r < 3; r++)
      for (let c = 0; c < 3; c++) cov[r * 3 + c] += (lab[i * 3 + r] - mean[r]) * (lab[i * 3 + c] - mean[c]);
  }
  // The trimmed sample under-states the spread; a floor keeps a flat synthetic skin usable.
  for (let k = 0; k < 9; k++) cov[k] = (cov[k] / near.length) * 1.5 + (k % 4 === 0 ? 4 : 0);
  const inv = invert3(cov);
  if (!inv) return null;
  return {
    distance2: (l, a, b) => {
      const d = [l - mean[0], a - mean[1], b - mean[2]];
      let sum = 0;
      for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) sum += d[r] * inv[r * 3 + c] * d[c];
      return sum;
    },
  };
}

function invert3(m: number[]): number[] | null {
  const [a, b, c, d, e, f, g, h, i] = m;
  const A = e * i - f * h;
  const B = -(d * i - f * g);
  const C = d * h - e * g;
  const det = a * A + b * B + c * C;
  if (Math.abs(det) < 1e-9) return null;
  return [
    A / det,
    -(b * i - c * h) / det,
    (b * f - c * e) / det,
    B / det,
    (a * i - c * g) / det,
    -(a * f - c * d) / det,
    C / det,
    -(a * h - b * g) / det,
    (a * e - b * d) / det,
  ];
}

/**
 * A soft mask (0..255) of the target's eyes and/or mouth to keep, where the source's openness
 * differs from the target's (a closed mouth warped onto an open one shows teeth-less lips), or null.
 */
async function keptFeatures(
  sourceFace: DetectedFace,
  targetFace: DetectedFace,
  region: Region,
  faceSize: number,
  tuning: SwapTuning,
): Promise<Buffer | null> {
  const s = expressionOf(sourceFace);
  const t = expressionOf(targetFace);
  const parts: number[][] = [];
  if (Math.abs(s.mouth - t.mouth) > tuning.expressionGap) parts.push(LIPS);
  if (Math.abs(s.eyes - t.eyes) > tuning.expressionGap) parts.push(LEFT_EYE, RIGHT_EYE);
  if (!parts.length) return null;
  const keep = new Uint8Array(region.w * region.h);
  for (const part of parts) {
    const hull = convexHull(part.map((k) => targetFace.landmarks[k]));
    const one = new Uint8Array(region.w * region.h);
    fillConvexPolygon(offsetPolygon(hull, -0.04 * faceSize), one, region.w, region.h, region.x, region.y);
    for (let i = 0; i < keep.length; i++) if (one[i]) keep[i] = 255;
  }
  return sharp(keep, { raw: { width: region.w, height: region.h, channels: 1 } })
    .blur(Math.max(0.5, 0.03 * faceSize))
    .extractChannel(0)
    .raw()
    .toBuffer();
}

/** The oval with its part above the brows pulled down towards them, to `keep` of its height. */
function lowerForehead(oval: readonly Point[], face: DetectedFace, keep: number): Point[] {
  if (keep >= 1) return [...oval];
  const l = face.landmarks;
  const [cx, cy] = l[152]; // chin
  const ux = l[10][0] - cx;
  const uy = l[10][1] - cy;
  const length = Math.hypot(ux, uy) || 1;
  const [ex, ey] = [ux / length, uy / length]; // "up" along the face
  const along = ([x, y]: Point) => (x - cx) * ex + (y - cy) * ey;
  const brow = BROWS.reduce((sum, k) => sum + along(l[k]), 0) / BROWS.length;
  return convexHull(
    oval.map((p): Point => {
      const t = along(p);
      if (t <= brow) return p;
      const shift = (t - brow) * (1 - keep);
      return [p[0] - shift * ex, p[1] - shift * ey];
    }),
  );
}

interface Region {
  x: number;
  y: number;
  w: number;
  h: number;
}

/**
 * For every target pixel of the region inside a triangle of the target landmarks, samples the
 * source image at the same barycentric position of the matching source triangle.
 */
function warpTriangles(
  source: RgbImage,
  sourcePoints: readonly Point[],
  targetPoints: readonly Point[],
  region: Region,
  warped: Float32Array,
  covered: Uint8Array,
  mirror?: { image: RgbImage; points: Point[] },
  mirrorSides = false,
): void {
  const triangles = Delaunator.from([...targetPoints]).triangles;
  const eps = 1e-4;
  const count = triangles.length / 3;
  const fromMirror = new Uint8Array(count);
  if (mirror) {
    // The side of the face's midline (forehead 10 to chin 152) each triangle lies on, and how much
    // of each side's area would come from the mirror.
    const [tx, ty] = targetPoints[10];
    const [bx, by] = targetPoints[152];
    const side = new Uint8Array(count);
    const area = [0, 0];
    const mirrored = [0, 0];
    for (let t = 0; t < count; t++) {
      const [a, b, c] = [triangles[3 * t], triangles[3 * t + 1], triangles[3 * t + 2]].map(
        (k) => targetPoints[k],
      );
      const det = (b[1] - c[1]) * (a[0] - c[0]) + (c[0] - b[0]) * (a[1] - c[1]);
      // Area as the target's orientation sees it: a part turned away shrinks (or folds over).
      const shown = (p: readonly Point[]) =>
        Math.sign(det) *
        ((p[triangles[3 * t + 1]][1] - p[triangles[3 * t + 2]][1]) *
          (p[triangles[3 * t]][0] - p[triangles[3 * t + 2]][0]) +
          (p[triangles[3 * t + 2]][0] - p[triangles[3 * t + 1]][0]) *
            (p[triangles[3 * t]][1] - p[triangles[3 * t + 2]][1]));
      fromMirror[t] = shown(mirror.points) > MIRROR_GAIN * Math.max(shown(sourcePoints), 0) ? 1 : 0;
      const mx = (a[0] + b[0] + c[0]) / 3;
      const my = (a[1] + b[1] + c[1]) / 3;
      side[t] = (bx - tx) * (my - ty) - (by - ty) * (mx - tx) > 0 ? 1 : 0;
      area[side[t]] += Math.abs(det);
      if (fromMirror[t]) mirrored[side[t]] += Math.abs(det);
    }
    // Triangle by triangle the choice flickers where the two areas are alike, and the mirror's
    // other light shows as a patchwork: one choice per side instead.
    if (mirrorSides)
      for (let t = 0; t < count; t++) fromMirror[t] = mirrored[side[t]] > area[side[t]] / 2 ? 1 : 0;
  }
  for (let t = 0; t < triangles.length; t += 3) {
    const [ax, ay] = targetPoints[triangles[t]];
    const [bx, by] = targetPoints[triangles[t + 1]];
    const [cx, cy] = targetPoints[triangles[t + 2]];
    const det = (by - cy) * (ax - cx) + (cx - bx) * (ay - cy);
    if (Math.abs(det) < 1e-9) continue;
    const from = mirror && fromMirror[t / 3] ? mirror.image : source;
    const points = mirror && fromMirror[t / 3] ? mirror.points : sourcePoints;
    const [sax, say] = points[triangles[t]];
    const [sbx, sby] = points[triangles[t + 1]];
    const [scx, scy] = points[triangles[t + 2]];
    const px0 = Math.max(region.x, Math.floor(Math.min(ax, bx, cx)));
    const py0 = Math.max(region.y, Math.floor(Math.min(ay, by, cy)));
    const px1 = Math.min(region.x + region.w - 1, Math.ceil(Math.max(ax, bx, cx)));
    const py1 = Math.min(region.y + region.h - 1, Math.ceil(Math.max(ay, by, cy)));
    for (let py = py0; py <= py1; py++) {
      const Y = py + 0.5;
      for (let px = px0; px <= px1; px++) {
        const X = px + 0.5;
        const l1 = ((by - cy) * (X - cx) + (cx - bx) * (Y - cy)) / det;
        const l2 = ((cy - ay) * (X - cx) + (ax - cx) * (Y - cy)) / det;
        const l3 = 1 - l1 - l2;
        if (l1 < -eps || l2 < -eps || l3 < -eps) continue;
        const i = (py - region.y) * region.w + (px - region.x);
        sampleBilinear(
          from,
          l1 * sax + l2 * sbx + l3 * scx - 0.5,
          l1 * say + l2 * sby + l3 * scy - 0.5,
          warped,
          i * 3,
        );
        covered[i] = 1;
      }
    }
  }
}

/** Bilinear sample of `image` at pixel-index coordinates (x, y), edges clamped. */
function sampleBilinear(image: RgbImage, x: number, y: number, out: Float32Array, offset: number): void {
  const { width, height, data } = image;
  const cx = Math.min(Math.max(x, 0), width - 1);
  const cy = Math.min(Math.max(y, 0), height - 1);
  const x0 = Math.floor(cx);
  const y0 = Math.floor(cy);
  const x1 = Math.min(x0 + 1, width - 1);
  const y1 = Math.min(y0 + 1, height - 1);
  const fx = cx - x0;
  const fy = cy - y0;
  const i00 = (y0 * width + x0) * 3;
  const i10 = (y0 * width + x1) * 3;
  const i01 = (y1 * width + x0) * 3;
  const i11 = (y1 * width + x1) * 3;
  for (let c = 0; c < 3; c++) {
    const top = data[i00 + c] + fx * (data[i10 + c] - data[i00 + c]);
    const bottom = data[i01 + c] + fx * (data[i11 + c] - data[i01 + c]);
    out[offset + c] = top + fy * (bottom - top);
  }
}

/**
 * Colour transfer in Lab: the warped face's mean and standard deviation per channel (inside the
 * mask) are moved to the target face's, so skin tone and lighting match.
 */
function matchColours(
  warped: Float32Array,
  covered: Uint8Array,
  target: RgbImage,
  region: Region,
  mask: Uint8Array,
  tuning: SwapTuning,
  faceSize: number,
  eyes: Uint8Array | null,
): void {
  const { stdRatio, colour: strength } = tuning;
  const n = region.w * region.h;
  const warpedLab = new Float32Array(n * 3);
  const targetLab = new Float32Array(n * 3);
  for (let y = 0; y < region.h; y++) {
    for (let x = 0; x < region.w; x++) {
      const i = y * region.w + x;
      if (!covered[i]) continue;
      rgbToLab(
        Math.round(warped[i * 3]),
        Math.round(warped[i * 3 + 1]),
        Math.round(warped[i * 3 + 2]),
        warpedLab,
        i * 3,
      );
      if (!mask[i]) continue;
      const o = ((region.y + y) * target.width + region.x + x) * 3;
      rgbToLab(target.data[o], target.data[o + 1], target.data[o + 2], targetLab, i * 3);
    }
  }
  const from = channelStats(warpedLab, mask);
  const to = channelStats(targetLab, mask);
  const ratio = [0, 1, 2]
    .map((c) => Math.min(stdRatio[1], Math.max(stdRatio[0], to.std[c] / Math.max(from.std[c], 1e-3))))
    .map((r) => 1 + strength * (r - 1));
  to.mean = to.mean.map((m, c) => from.mean[c] + strength * (m - from.mean[c])) as [number, number, number];
  const lightness = (l: number) => (l - from.mean[0]) * ratio[0] + to.mean[0];
  const shade =
    tuning.shading > 0 ? shadingShift(warpedLab, targetLab, mask, region, tuning, faceSize, lightness) : null;
  const local =
    tuning.highlights > 0 ? localLightness(warpedLab, covered, region, faceSize, lightness) : null;
  for (let i = 0; i < n; i++) {
    if (!covered[i]) continue;
    const o = i * 3;
    let l = lightness(warpedLab[o]);
    // The source's specular highlights (its own lights' reflections) are pressed down to the knob
    // above the local lightness; the eyes' catchlights and whites are left alone.
    if (local && !eyes?.[i] && l - local[i] > tuning.highlights) {
      l = local[i] + tuning.highlights + 0.3 * (l - local[i] - tuning.highlights);
    }
    labToRgb(
      l + (shade ? shade[i] : 0),
      (warpedLab[o + 1] - from.mean[1]) * ratio[1] + to.mean[1],
      (warpedLab[o + 2] - from.mean[2]) * ratio[2] + to.mean[2],
      warped,
      o,
    );
  }
}

/**
 * Per pixel, the lightness (Lab L) to add so the warped face's large-scale shading becomes the
 * target's: both lightnesses blurred over the skin `mask` only (normalised convolution, so eyes,
 * lips and hair do not darken it), their difference minus its mean (the mean is the colour
 * transfer's), times `shading`; it fades out where the blur sees little skin.
 */
function shadingShift(
  warpedLab: Float32Array,
  targetLab: Float32Array,
  mask: Uint8Array,
  region: Region,
  tuning: SwapTuning,
  faceSize: number,
  lightness: (l: number) => number,
): Float32Array {
  const n = region.w * region.h;
  const weight = new Float32Array(n);
  const w = new Float32Array(n);
  const t = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    if (!mask[i]) continue;
    weight[i] = 1;
    w[i] = lightness(warpedLab[i * 3]);
    t[i] = targetLab[i * 3];
  }
  const radius = Math.max(1, Math.round(tuning.shadingSigma * faceSize));
  for (const field of [weight, w, t]) boxBlur(field, region.w, region.h, radius);
  const shift = new Float32Array(n);
  let sum = 0;
  let count = 0;
  for (let i = 0; i < n; i++) {
    if (weight[i] < 1e-3) continue;
    shift[i] = (t[i] - w[i]) / weight[i];
    if (mask[i]) {
      sum += shift[i];
      count++;
    }
  }
  const mean = count ? sum / count : 0;
  for (let i = 0; i < n; i++) {
    const fade = Math.min(1, weight[i] / 0.5);
    shift[i] = weight[i] < 1e-3 ? 0 : tuning.shading * fade * (shift[i] - mean);
  }
  return shift;
}

/** The warped face's lightness (after `lightness`) blurred over 6 % of the face size. */
function localLightness(
  warpedLab: Float32Array,
  covered: Uint8Array,
  region: Region,
  faceSize: number,
  lightness: (l: number) => number,
): Float32Array {
  const n = region.w * region.h;
  const weight = new Float32Array(n);
  const field = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    if (!covered[i]) continue;
    weight[i] = 1;
    field[i] = lightness(warpedLab[i * 3]);
  }
  const radius = Math.max(1, Math.round(0.06 * faceSize));
  boxBlur(weight, region.w, region.h, radius);
  boxBlur(field, region.w, region.h, radius);
  for (let i = 0; i < n; i++) field[i] = weight[i] > 1e-3 ? field[i] / weight[i] : 0;
  return field;
}

/** Three passes of a box blur of `radius` in each direction (about a Gaussian of that sigma). */
function boxBlur(field: Float32Array, width: number, height: number, radius: number): void {
  const line = new Float32Array(Math.max(width, height));
  const pass = (count: number, length: number, at: (k: number, j: number) => number) => {
    for (let k = 0; k < count; k++) {
      for (let j = 0; j < length; j++) line[j] = field[at(k, j)];
      let acc = 0;
      for (let j = -radius; j <= radius; j++) acc += line[Math.min(length - 1, Math.max(0, j))];
      for (let j = 0; j < length; j++) {
        field[at(k, j)] = acc / (2 * radius + 1);
        acc += line[Math.min(length - 1, j + radius + 1)] - line[Math.max(0, j - radius)];
      }
    }
  };
  for (let p = 0; p < 3; p++) {
    pass(height, width, (y, x) => y * width + x);
    pass(width, height, (x, y) => y * width + x);
  }
}

/** Sources turned less than this (degrees of yaw) are used as they are (no mirrored parts). */
const MIRROR_MIN_YAW = 12;
/** A triangle comes from the mirrored source when it shows this many times larger there. */
const MIRROR_GAIN = 1.3;

/**
 * The source flipped left to right, with its landmarks (and ring) renumbered so that point k of the
 * mirror is the mirror partner of point k (MESH_MIRROR): the same person turned the other way.
 */
function mirrored(
  source: RgbImage,
  face: DetectedFace,
  expand: number,
): { image: RgbImage; points: Point[] } {
  const { width, height, data } = source;
  const flipped = new Uint8Array(data.length);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const from = (y * width + x) * 3;
      const to = (y * width + (width - 1 - x)) * 3;
      flipped[to] = data[from];
      flipped[to + 1] = data[from + 1];
      flipped[to + 2] = data[from + 2];
    }
  }
  const landmarks = MESH_MIRROR.map((k): Point => [width - face.landmarks[k][0], face.landmarks[k][1]]);
  return { image: { data: flipped, width, height }, points: withRing(landmarks, expand) };
}

/** Poses further apart than this (degrees of yaw) keep the target's shape. */
const SHAPE_YAW_RANGE = 20;

/**
 * The target's landmarks moved `amount` of the way towards the source's, after the source's are
 * brought onto the target's by the least-squares similarity (scale, rotation, shift).
 */
function reshaped(sourceFace: DetectedFace, targetFace: DetectedFace, amount: number): Point[] {
  const t = targetFace.landmarks;
  const yawGap = Math.abs(yawDegreesOf(sourceFace) - yawDegreesOf(targetFace));
  const weight = amount * Math.max(0, 1 - yawGap / SHAPE_YAW_RANGE);
  if (!(weight > 0)) return [...t];
  const s = sourceFace.landmarks;
  const [scx, scy] = centroid(s);
  const [tcx, tcy] = centroid(t);
  let dot = 0;
  let cross = 0;
  let norm = 0;
  for (let k = 0; k < s.length; k++) {
    const [sx, sy] = [s[k][0] - scx, s[k][1] - scy];
    const [tx, ty] = [t[k][0] - tcx, t[k][1] - tcy];
    dot += sx * tx + sy * ty;
    cross += sx * ty - sy * tx;
    norm += sx * sx + sy * sy;
  }
  const a = dot / Math.max(norm, 1e-9);
  const b = cross / Math.max(norm, 1e-9);
  return t.map(([x, y], k): Point => {
    const [sx, sy] = [s[k][0] - scx, s[k][1] - scy];
    const ax = a * sx - b * sy + tcx;
    const ay = b * sx + a * sy + tcy;
    return [x + weight * (ax - x), y + weight * (ay - y)];
  });
}

/** The landmarks plus a ring of points `expand` beyond the face oval (from the oval's centre). */
function withRing(landmarks: readonly Point[], expand: number): Point[] {
  if (expand <= 0) return [...landmarks];
  const oval = FACE_OVAL.map((i) => landmarks[i]);
  const [cx, cy] = centroid(oval);
  return [
    ...landmarks,
    ...oval.map(([x, y]): Point => [cx + (x - cx) * (1 + expand), cy + (y - cy) * (1 + expand)]),
  ];
}

function polygonArea(polygon: readonly Point[]): number {
  let sum = 0;
  for (let i = 0; i < polygon.length; i++) {
    const [ax, ay] = polygon[i];
    const [bx, by] = polygon[(i + 1) % polygon.length];
    sum += ax * by - bx * ay;
  }
  return Math.abs(sum) / 2;
}
