import { rgbToLab } from './colour';
import type { Point } from './face-analyzer';
import { centroid } from './geometry';
import type { RgbImage } from './image-io';

/** Rings around a face oval, as fractions of its radius from its centre. */
const RINGS = [0.9, 0.92, 0.94, 0.96, 0.98, 1, 1.02, 1.04, 1.06, 1.08, 1.1, 1.12, 1.14];

/** Lab of the pixel nearest (x, y), or null outside the image. */
function labAt(image: RgbImage, x: number, y: number, out: Float32Array): boolean {
  const px = Math.round(x);
  const py = Math.round(y);
  if (px < 0 || py < 0 || px >= image.width || py >= image.height) return false;
  const o = (py * image.width + px) * 3;
  rgbToLab(image.data[o], image.data[o + 1], image.data[o + 2], out, 0);
  return true;
}

/** Mean colour step (CIE76 ΔE) between each pair of neighbouring rings around `oval`. */
export function ringSteps(image: RgbImage, oval: readonly Point[]): number[] {
  const [cx, cy] = centroid(oval);
  const samples: Point[] = [];
  for (let i = 0; i < oval.length; i++) {
    const [ax, ay] = oval[i];
    const [bx, by] = oval[(i + 1) % oval.length];
    for (let t = 0; t < 1; t += 0.25) samples.push([ax + t * (bx - ax), ay + t * (by - ay)]);
  }
  const inner = new Float32Array(3);
  const outer = new Float32Array(3);
  return RINGS.slice(1).map((ring, r) => {
    let sum = 0;
    let n = 0;
    for (const [x, y] of samples) {
      if (!labAt(image, cx + (x - cx) * RINGS[r], cy + (y - cy) * RINGS[r], inner)) continue;
      if (!labAt(image, cx + (x - cx) * ring, cy + (y - cy) * ring, outer)) continue;
      sum += Math.hypot(inner[0] - outer[0], inner[1] - outer[1], inner[2] - outer[2]);
      n++;
    }
    return n ? sum / n : 0;
  });
}

/**
 * The seam a face swap left around the target's face oval: the largest excess colour step between
 * neighbouring rings (0.90..1.14 of the oval's radius) of the output over the same step in the
 * target. A pasted edge shows as a step the target did not have; a clean blend stays near 0.
 * Judged by the benchmark and the swap's spec; the swap itself never uses it.
 */
export function seamFigure(target: RgbImage, output: RgbImage, oval: readonly Point[]): number {
  const before = ringSteps(target, oval);
  const after = ringSteps(output, oval);
  return Math.max(...after.map((step, k) => step - before[k]));
}
