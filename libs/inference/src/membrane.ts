/**
 * A membrane (harmonic) interpolation: values known on some pixels are spread smoothly over the
 * `inside` pixels (Laplace's equation, the heart of gradient-domain blending: adding this field to
 * a patch keeps the patch's own gradients while its edge meets the surroundings). Solved by
 * over-relaxed Gauss-Seidel on a grid of at most `grid` cells per side, then bilinearly upsampled:
 * the field is smooth by construction, so the coarse solve loses nothing visible.
 */
export function membrane(
  width: number,
  height: number,
  inside: Uint8Array,
  known: Uint8Array,
  values: Float32Array,
  grid = 96,
): Float32Array {
  const step = Math.max(1, Math.ceil(Math.max(width, height) / grid));
  const gw = Math.ceil(width / step) + 1;
  const gh = Math.ceil(height / step) + 1;
  const sums = new Float32Array(gw * gh * 3);
  const counts = new Float32Array(gw * gh);
  const insideCount = new Float32Array(gw * gh);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const g = ((y / step + 0.5) | 0) * gw + ((x / step + 0.5) | 0);
      if (inside[i]) insideCount[g]++;
      else if (known[i]) {
        counts[g]++;
        for (let c = 0; c < 3; c++) sums[g * 3 + c] += values[i * 3 + c];
      }
    }
  }
  const free = new Uint8Array(gw * gh);
  const field = new Float32Array(gw * gh * 3);
  for (let g = 0; g < gw * gh; g++) {
    if (counts[g] > 0 && counts[g] >= insideCount[g]) {
      for (let c = 0; c < 3; c++) field[g * 3 + c] = sums[g * 3 + c] / counts[g];
    } else if (insideCount[g] > 0 || counts[g] === 0) free[g] = 1;
  }
  const omega = 1.9;
  for (let iteration = 0; iteration < 400; iteration++) {
    for (let gy = 0; gy < gh; gy++) {
      for (let gx = 0; gx < gw; gx++) {
        const g = gy * gw + gx;
        if (!free[g]) continue;
        for (let c = 0; c < 3; c++) {
          const k = g * 3 + c;
          let sum = 0;
          let n = 0;
          if (gx > 0) {
            sum += field[k - 3];
            n++;
          }
          if (gx < gw - 1) {
            sum += field[k + 3];
            n++;
          }
          if (gy > 0) {
            sum += field[k - gw * 3];
            n++;
          }
          if (gy < gh - 1) {
            sum += field[k + gw * 3];
            n++;
          }
          field[k] += omega * (sum / n - field[k]);
        }
      }
    }
  }
  const out = new Float32Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    const fy = y / step;
    const y0 = (fy | 0) < gh - 2 ? fy | 0 : gh - 2;
    const ty = fy - y0;
    for (let x = 0; x < width; x++) {
      const fx = x / step;
      const x0 = (fx | 0) < gw - 2 ? fx | 0 : gw - 2;
      const tx = fx - x0;
      const i = (y * width + x) * 3;
      const g = (y0 * gw + x0) * 3;
      for (let c = 0; c < 3; c++) {
        const top = field[g + c] + tx * (field[g + 3 + c] - field[g + c]);
        const bottom = field[g + gw * 3 + c] + tx * (field[g + gw * 3 + 3 + c] - field[g + gw * 3 + c]);
        out[i + c] = top + ty * (bottom - top);
      }
    }
  }
  return out;
}
