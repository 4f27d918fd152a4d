import type { Point } from './face-analyzer';

/**
 * Landmark indices of the MediaPipe face mesh (468 points) outlining the face: forehead, temples,
 * cheeks and jaw (FACEMESH_FACE_OVAL).
 */
export const FACE_OVAL = [
  10, 338, 297, 332, 284, 251, 389, 356, 454, 323, 361, 288, 397, 365, 379, 378, 400, 377, 152, 148, 176, 149,
  150, 136, 172, 58, 132, 93, 234, 127, 162, 21, 54, 103, 67, 109,
];

/** Convex hull of points (Andrew's monotone chain), as a closed polygon without repeated vertex. */
export function convexHull(points: readonly Point[]): Point[] {
  const sorted = [...points].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  if (sorted.length < 3) return sorted;
  const cross = (o: Point, a: Point, b: Point) =>
    (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const lower: Point[] = [];
  for (const p of sorted) {
    while (lower.length >= 2 && cross(lower[lower.length - 2], lower[lower.length - 1], p) <= 0) lower.pop();
    lower.push(p);
  }
  const upper: Point[] = [];
  for (let i = sorted.length - 1; i >= 0; i--) {
    const p = sorted[i];
    while (upper.length >= 2 && cross(upper[upper.length - 2], upper[upper.length - 1], p) <= 0) upper.pop();
    upper.push(p);
  }
  return lower.slice(0, -1).concat(upper.slice(0, -1));
}

export function centroid(points: readonly Point[]): Point {
  let x = 0;
  let y = 0;
  for (const p of points) {
    x += p[0];
    y += p[1];
  }
  return [x / points.length, y / points.length];
}

/** Moves each vertex of a convex polygon `distance` px towards (negative: away from) its centroid. */
export function offsetPolygon(polygon: readonly Point[], distance: number): Point[] {
  const [cx, cy] = centroid(polygon);
  return polygon.map(([x, y]) => {
    const dx = cx - x;
    const dy = cy - y;
    const length = Math.hypot(dx, dy) || 1;
    const step = Math.min(distance, length * 0.9);
    return [x + (dx / length) * step, y + (dy / length) * step];
  });
}

/** Integer bounding rectangle [x0, y0, x1, y1) of points, grown by `pad`, clipped to the image. */
export function boundsOf(
  points: readonly Point[],
  pad: number,
  width: number,
  height: number,
): [number, number, number, number] {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const [x, y] of points) {
    x0 = Math.min(x0, x);
    y0 = Math.min(y0, y);
    x1 = Math.max(x1, x);
    y1 = Math.max(y1, y);
  }
  return [
    Math.max(0, Math.floor(x0 - pad)),
    Math.max(0, Math.floor(y0 - pad)),
    Math.min(width, Math.ceil(x1 + pad)),
    Math.min(height, Math.ceil(y1 + pad)),
  ];
}

/**
 * Fills a convex polygon into an 8-bit mask (255 inside) of size w x h whose pixel (0,0) is at
 * (ox, oy); pixel centres are tested.
 */
export function fillConvexPolygon(
  polygon: readonly Point[],
  mask: Uint8Array,
  w: number,
  h: number,
  ox: number,
  oy: number,
): void {
  const n = polygon.length;
  for (let y = 0; y < h; y++) {
    const py = oy + y + 0.5;
    // Intersections of the scanline with the polygon's edges; convex: one span.
    let left = Infinity;
    let right = -Infinity;
    for (let i = 0; i < n; i++) {
      const [ax, ay] = polygon[i];
      const [bx, by] = polygon[(i + 1) % n];
      if ((ay <= py && by > py) || (by <= py && ay > py)) {
        const x = ax + ((py - ay) / (by - ay)) * (bx - ax);
        left = Math.min(left, x);
        right = Math.max(right, x);
      }
    }
    if (left > right) continue;
    const from = Math.max(0, Math.ceil(left - ox - 0.5));
    const to = Math.min(w - 1, Math.floor(right - ox - 0.5));
    mask.fill(255, y * w + from, y * w + to + 1);
  }
}
