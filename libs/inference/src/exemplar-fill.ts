/**
 * Exemplar-based image completion (Wexler, Shechtman & Irani 2007) with PatchMatch (Barnes et al.
 * 2009) as the nearest-patch search, coarse to fine: each hole pixel is voted from the known
 * patches that best match the patches around it, so textures (fabric, grass, brick, hair) are
 * continued with their structure instead of the smooth smear of diffusion methods (Telea). No
 * model: the fill comes from the picture itself.
 */

import { membrane } from './membrane';

/** Patch radius: 7x7 patches. */
const R = 3;

export interface ExemplarFillOptions {
  /** EM rounds at the coarsest level; halved (at least 2) towards the finest. */
  rounds?: number;
  /** PatchMatch passes per EM round. */
  passes?: number;
  /** Deterministic randomness (tests, benchmarks). */
  seed?: number;
  /** Called with 0..1 as EM rounds finish, in proportion to their pixels (the work). */
  onProgress?: (fraction: number) => void;
  /** Checked between levels and rounds. */
  signal?: AbortSignal;
}

interface Level {
  width: number;
  height: number;
  /** RGB, float. */
  pixels: Float32Array;
  /** 1 where the pixel is to be filled. */
  hole: Uint8Array;
}

/**
 * Fills the pixels where `hole` is set. `pixels` is 8-bit RGB; `initial` a first guess of the hole
 * (e.g. Telea's), used at the coarsest level. Returns new RGB pixels (outside the hole unchanged).
 * Returns null when the image has no complete known patch to copy from.
 */
export function exemplarFill(
  pixels: Uint8Array,
  width: number,
  height: number,
  hole: Uint8Array,
  initial: Uint8Array,
  options: ExemplarFillOptions = {},
): Uint8Array | null {
  const random = xorshift32(options.seed ?? 1);
  const finest: Level = {
    width,
    height,
    pixels: Float32Array.from(pixels),
    hole: Uint8Array.from(hole, (v) => (v ? 1 : 0)),
  };
  for (let i = 0; i < hole.length; i++) {
    if (finest.hole[i]) for (let c = 0; c < 3; c++) finest.pixels[i * 3 + c] = initial[i * 3 + c];
  }
  // The pyramid: halve until the hole is a few patches across, or until halving would leave no
  // whole known patch (a hole spanning most of the picture): a coarser level must have sources.
  const levels: Level[] = [finest];
  const sourcesOf: Int32Array[] = [validSources(finest)];
  if (sourcesOf[0].length === 0) return null;
  while (
    Math.min(levels[0].width, levels[0].height) >= 8 * (2 * R + 1) &&
    holeExtent(levels[0]) > 4 * (2 * R + 1)
  ) {
    const coarser = halve(levels[0]);
    const sources = validSources(coarser);
    if (sources.length === 0) break;
    levels.unshift(coarser);
    sourcesOf.unshift(sources);
  }
  let nnf: Nnf | null = null;
  let previous: Level | null = null;
  const ring = { values: new Float32Array(width * height * 3), known: new Uint8Array(width * height) };
  const rounds = options.rounds ?? 6;
  const last = levels.length - 1;
  // the finest level only refines: fewer rounds where each costs the most
  const roundsAt = (l: number) => (l === last ? Math.max(2, rounds >> 1) : rounds);
  const work = levels.reduce((sum, level, l) => sum + roundsAt(l) * level.width * level.height, 0);
  let done = 0;
  for (let l = 0; l < levels.length; l++) {
    options.signal?.throwIfAborted();
    const level = levels[l];
    const sources = sourcesOf[l];
    if (previous && nnf) {
      nnf = upscaleNnf(nnf, previous, level, sources, random);
      // the finer level's hole starts from the coarser result, upsampled
      for (let y = 0; y < level.height; y++) {
        for (let x = 0; x < level.width; x++) {
          const i = y * level.width + x;
          if (!level.hole[i]) continue;
          const j =
            Math.min(previous.height - 1, y >> 1) * previous.width + Math.min(previous.width - 1, x >> 1);
          for (let c = 0; c < 3; c++) level.pixels[i * 3 + c] = previous.pixels[j * 3 + c];
        }
      }
    } else {
      nnf = randomNnf(level, sources, random);
    }
    const emRounds = roundsAt(l);
    for (let round = 0; round < emRounds; round++) {
      options.signal?.throwIfAborted();
      for (let pass = 0; pass < (options.passes ?? 4); pass++) {
        if (pass > 0) options.signal?.throwIfAborted(); // a pass over a large hole takes a while
        patchMatchPass(level, nnf, pass % 2 === 1, random);
      }
      vote(level, nnf, l === last && round === emRounds - 1 ? ring : undefined);
      done += level.width * level.height;
      options.onProgress?.(done / work);
    }
    previous = level;
  }
  // Copied patches may come from a lighter or darker part of the picture (a gradient, a shadow):
  // a membrane spreads the edge's mismatch over the hole, so the fill meets its surroundings.
  const correction = membrane(width, height, finest.hole, ring.known, ring.values, 128);
  for (let i = 0; i < hole.length; i++) {
    if (finest.hole[i]) for (let c = 0; c < 3; c++) finest.pixels[i * 3 + c] += correction[i * 3 + c];
  }
  const out = new Uint8Array(pixels);
  const clamped = new Uint8ClampedArray(out.buffer, out.byteOffset, out.length);
  for (let i = 0; i < hole.length; i++) {
    if (finest.hole[i]) for (let c = 0; c < 3; c++) clamped[i * 3 + c] = finest.pixels[i * 3 + c];
  }
  return out;
}

/** The larger side of the hole's bounding box. */
function holeExtent(level: Level): number {
  let x0 = level.width;
  let y0 = level.height;
  let x1 = -1;
  let y1 = -1;
  for (let y = 0; y < level.height; y++) {
    for (let x = 0; x < level.width; x++) {
      if (!level.hole[y * level.width + x]) continue;
      x0 = Math.min(x0, x);
      x1 = Math.max(x1, x);
      y0 = Math.min(y0, y);
      y1 = Math.max(y1, y);
    }
  }
  return x1 < 0 ? 0 : Math.max(x1 - x0, y1 - y0) + 1;
}

/** Half size: known pixels averaged from known pixels only; a pixel is a hole if any of its four is. */
function halve(level: Level): Level {
  const width = Math.max(1, level.width >> 1);
  const height = Math.max(1, level.height >> 1);
  const pixels = new Float32Array(width * height * 3);
  const hole = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = y * width + x;
      let n = 0;
      let anyHole = 0;
      const sum = [0, 0, 0];
      for (let dy = 0; dy < 2; dy++) {
        for (let dx = 0; dx < 2; dx++) {
          const yy = 2 * y + dy;
          const xx = 2 * x + dx;
          const i =
            (yy < level.height ? yy : level.height - 1) * level.width +
            (xx < level.width ? xx : level.width - 1);
          if (level.hole[i]) anyHole = 1;
          n++;
          for (let c = 0; c < 3; c++) sum[c] += level.pixels[i * 3 + c];
        }
      }
      hole[o] = anyHole;
      for (let c = 0; c < 3; c++) pixels[o * 3 + c] = sum[c] / n;
    }
  }
  return { width, height, pixels, hole };
}

/** Centres of the patches that lie inside the image and touch no hole pixel. */
function validSources(level: Level): Int32Array {
  const { width, height, hole } = level;
  // distance to the nearest hole, capped: a column pass then a row pass of "any hole within R"
  const column = new Uint8Array(width * height);
  for (let x = 0; x < width; x++) {
    for (let y = 0; y < height; y++) {
      let any = 0;
      for (let d = -R; d <= R && !any; d++) {
        const yy = y + d;
        if (yy >= 0 && yy < height && hole[yy * width + x]) any = 1;
      }
      column[y * width + x] = any;
    }
  }
  const found: number[] = [];
  for (let y = R; y < height - R; y++) {
    for (let x = R; x < width - R; x++) {
      let any = 0;
      for (let d = -R; d <= R && !any; d++) any = column[y * width + x + d];
      if (!any) found.push(y * width + x);
    }
  }
  return Int32Array.from(found);
}

/** Target patches: centres within R of a hole pixel (their patches overlap the hole). */
function targets(level: Level): Int32Array {
  const { width, height, hole } = level;
  const found: number[] = [];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let near = 0;
      for (let dy = -R; dy <= R && !near; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= height) continue;
        for (let dx = -R; dx <= R; dx++) {
          const xx = x + dx;
          if (xx >= 0 && xx < width && hole[yy * width + xx]) {
            near = 1;
            break;
          }
        }
      }
      if (near) found.push(y * width + x);
    }
  }
  return Int32Array.from(found);
}

/**
 * Sum of squared differences between the patch at target t and source s (edges clamped on t),
 * stopping once past `limit`. (No Math.* calls in here: they are slow in the vm contexts of jest.)
 */
function distance(level: Level, t: number, s: number, limit: number): number {
  const { width, height, pixels } = level;
  const tx = t % width;
  const ty = (t - tx) / width;
  const sx = s % width;
  const sy = (s - sx) / width;
  const interior = tx >= R && ty >= R && tx < width - R && ty < height - R;
  let sum = 0;
  for (let dy = -R; dy <= R; dy++) {
    let yy = ty + dy;
    if (!interior) yy = yy < 0 ? 0 : yy >= height ? height - 1 : yy;
    let a = (yy * width + tx - R) * 3;
    let b = ((sy + dy) * width + sx - R) * 3;
    for (let dx = -R; dx <= R; dx++, a += 3, b += 3) {
      let at = a;
      if (!interior) {
        const xx = tx + dx;
        at = (yy * width + (xx < 0 ? 0 : xx >= width ? width - 1 : xx)) * 3;
      }
      const d0 = pixels[at] - pixels[b];
      const d1 = pixels[at + 1] - pixels[b + 1];
      const d2 = pixels[at + 2] - pixels[b + 2];
      sum += d0 * d0 + d1 * d1 + d2 * d2;
    }
    if (sum >= limit) return sum;
  }
  return sum;
}

/** The nearest-neighbour field: for each pixel (only target pixels used), a source centre. */
interface Field {
  targets: Int32Array;
  source: Int32Array;
  cost: Float64Array;
  valid: Uint8Array;
}
/** `index[pixel]`: the pixel's entry in the field, or -1 when its patch does not touch the hole. */
interface Nnf {
  index: Int32Array;
  field: Field;
}

function buildField(level: Level, sources: Int32Array, pick: (t: number) => number): Nnf {
  const list = targets(level);
  const valid = new Uint8Array(level.width * level.height);
  for (const s of sources) valid[s] = 1;
  const source = new Int32Array(list.length);
  const cost = new Float64Array(list.length);
  for (let k = 0; k < list.length; k++) {
    let s = pick(list[k]);
    if (!valid[s]) s = sources[k % sources.length];
    source[k] = s;
    cost[k] = distance(level, list[k], s, Infinity);
  }
  const index = new Int32Array(level.width * level.height).fill(-1);
  for (let k = 0; k < list.length; k++) index[list[k]] = k;
  return { index, field: { targets: list, source, cost, valid } };
}

function randomNnf(level: Level, sources: Int32Array, random: () => number): Nnf {
  return buildField(level, sources, () => sources[Math.floor(random() * sources.length)]);
}

/** The coarser field's offsets, doubled, as the finer level's start (invalid ones: random). */
function upscaleNnf(coarse: Nnf, from: Level, to: Level, sources: Int32Array, random: () => number): Nnf {
  const field = coarse.field;
  return buildField(to, sources, (t) => {
    const x = t % to.width;
    const y = (t - x) / to.width;
    const c = Math.min(from.height - 1, y >> 1) * from.width + Math.min(from.width - 1, x >> 1);
    const k = coarse.index[c];
    if (k < 0) return sources[Math.floor(random() * sources.length)];
    const s = field.source[k];
    const sx = s % from.width;
    const sy = (s - sx) / from.width;
    const nx = Math.min(to.width - 1 - R, Math.max(R, 2 * sx + (x & 1)));
    const ny = Math.min(to.height - 1 - R, Math.max(R, 2 * sy + (y & 1)));
    return ny * to.width + nx;
  });
}

/** One PatchMatch pass: propagation from the two previous neighbours, then random search. */
function patchMatchPass(level: Level, nnf: Nnf, reverse: boolean, random: () => number): void {
  const { width, height } = level;
  const { targets: list, source, cost, valid } = nnf.field;
  const index = nnf.index;
  const step = reverse ? -1 : 1;
  const n = list.length;
  const tryCandidate = (k: number, s: number) => {
    if (s < 0 || s >= valid.length || !valid[s] || s === source[k]) return;
    const d = distance(level, list[k], s, cost[k]);
    if (d < cost[k]) {
      cost[k] = d;
      source[k] = s;
    }
  };
  for (let q = reverse ? n - 1 : 0; reverse ? q >= 0 : q < n; q += step) {
    const t = list[q];
    const tx = t % width;
    // propagation: the neighbour's source shifted by one
    if (tx - step >= 0 && tx - step < width) {
      const kn = index[t - step];
      if (kn >= 0) {
        const s = source[kn] + step;
        if ((s % width) - ((source[kn] % width) + step) === 0) tryCandidate(q, s);
      }
    }
    const up = t - step * width;
    if (up >= 0 && up < width * height) {
      const kn = index[up];
      if (kn >= 0) tryCandidate(q, source[kn] + step * width);
    }
    // random search around the current best, in shrinking windows
    let radius = Math.max(width, height);
    const bx = () => source[q] % width;
    while (radius >= 1) {
      const cx = bx();
      const cy = (source[q] - cx) / width;
      // truncation (| 0) instead of Math.round: negatives are out of bounds either way
      const x = (cx + (random() * 2 - 1) * radius + 0.5) | 0;
      const y = (cy + (random() * 2 - 1) * radius + 0.5) | 0;
      if (x >= R && y >= R && x < width - R && y < height - R) tryCandidate(q, y * width + x);
      radius = radius >> 1;
    }
  }
}

/**
 * Voting: each hole pixel becomes the weighted mean of what the overlapping target patches'
 * sources say it is, weighted by how well each patch matched.
 */
function vote(level: Level, nnf: Nnf, ring?: { values: Float32Array; known: Uint8Array }): void {
  const { width, height, pixels, hole } = level;
  const { targets: list, source, cost } = nnf.field;
  const sums = new Float64Array(width * height * 3);
  const weights = new Float64Array(width * height);
  const patchPixels = (2 * R + 1) ** 2 * 3;
  const sorted = Float64Array.from(cost).sort();
  const scale = Math.max(1e-6, sorted[Math.floor(sorted.length * 0.75)] / patchPixels);
  for (let k = 0; k < list.length; k++) {
    const t = list[k];
    const tx = t % width;
    const ty = (t - tx) / width;
    const s = source[k];
    const sx = s % width;
    const sy = (s - sx) / width;
    const w = Math.exp(-cost[k] / patchPixels / (2 * scale));
    for (let dy = -R; dy <= R; dy++) {
      const yy = ty + dy;
      if (yy < 0 || yy >= height) continue;
      for (let dx = -R; dx <= R; dx++) {
        const xx = tx + dx;
        if (xx < 0 || xx >= width) continue;
        const i = yy * width + xx;
        if (!hole[i] && !ring) continue;
        const from = ((sy + dy) * width + sx + dx) * 3;
        weights[i] += w;
        sums[i * 3] += w * pixels[from];
        sums[i * 3 + 1] += w * pixels[from + 1];
        sums[i * 3 + 2] += w * pixels[from + 2];
      }
    }
  }
  for (let i = 0; i < hole.length; i++) {
    if (weights[i] === 0) continue;
    if (hole[i]) {
      for (let c = 0; c < 3; c++) pixels[i * 3 + c] = sums[i * 3 + c] / weights[i];
    } else if (ring) {
      // what the copied patches say a known pixel is, against what it is: the edge's mismatch
      ring.known[i] = 1;
      for (let c = 0; c < 3; c++) ring.values[i * 3 + c] = pixels[i * 3 + c] - sums[i * 3 + c] / weights[i];
    }
  }
  // the patches' costs changed with the pixels: measure again for the next round
  for (let k = 0; k < list.length; k++) cost[k] = distance(level, list[k], source[k], Infinity);
}

/** A small seeded PRNG (xorshift32), so a fill is reproducible. */
function xorshift32(seed: number): () => number {
  let x = seed | 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}
