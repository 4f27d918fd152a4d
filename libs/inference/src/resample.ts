/**
 * Separable resampling of float pixels with a centred kernel (pixel centres at i + 0.5, as PIL and
 * OpenCV's INTER_AREA/CUBIC do), antialiased when scaling down (the kernel is stretched by the
 * factor). sharp cannot do this for float pixels (it reads a raw Float32Array as zeros), and the
 * back-projection of super resolution needs signed values.
 */

/** Keys' cubic convolution kernel (a = -0.5): the usual "bicubic". */
export function cubic(x: number): number {
  const a = -0.5;
  const t = Math.abs(x);
  if (t <= 1) return ((a + 2) * t - (a + 3)) * t * t + 1;
  if (t < 2) return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a;
  return 0;
}

interface Weights {
  first: Int32Array;
  count: number;
  values: Float32Array;
}

/** For each output index, the input indices and normalised weights along one axis. */
function axisWeights(inSize: number, outSize: number): Weights {
  const scale = inSize / outSize;
  const stretch = Math.max(1, scale);
  const support = 2 * stretch;
  const count = Math.ceil(support) * 2 + 1;
  const first = new Int32Array(outSize);
  const values = new Float32Array(outSize * count);
  for (let o = 0; o < outSize; o++) {
    const centre = (o + 0.5) * scale;
    const start = Math.floor(centre - support);
    first[o] = start;
    let sum = 0;
    for (let k = 0; k < count; k++) {
      const w = cubic((start + k + 0.5 - centre) / stretch);
      values[o * count + k] = w;
      sum += w;
    }
    for (let k = 0; k < count; k++) values[o * count + k] /= sum || 1;
  }
  return { first, count, values };
}

/**
 * Bicubic resize of interleaved pixels (edges clamped), as floats. With `into`, the result is added
 * to it (and it is returned): no second array of the output's size.
 */
export function resizeFloat(
  src: Float32Array | Uint8Array,
  width: number,
  height: number,
  channels: number,
  toWidth: number,
  toHeight: number,
  into?: Float32Array,
): Float32Array {
  const wx = axisWeights(width, toWidth);
  const wy = axisWeights(height, toHeight);
  const rows = new Float32Array(toWidth * height * channels);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < toWidth; x++) {
      const o = (y * toWidth + x) * channels;
      for (let k = 0; k < wx.count; k++) {
        const w = wx.values[x * wx.count + k];
        if (w === 0) continue;
        const at = wx.first[x] + k; // clamped without Math.* (slow in jest's vm contexts)
        const sx = at < 0 ? 0 : at >= width ? width - 1 : at;
        const i = (y * width + sx) * channels;
        for (let c = 0; c < channels; c++) rows[o + c] += w * src[i + c];
      }
    }
  }
  const out = into ?? new Float32Array(toWidth * toHeight * channels);
  if (out.length !== toWidth * toHeight * channels) throw new Error('resizeFloat: `into` has the wrong size');
  for (let y = 0; y < toHeight; y++) {
    for (let k = 0; k < wy.count; k++) {
      const w = wy.values[y * wy.count + k];
      if (w === 0) continue;
      const at = wy.first[y] + k;
      const sy = at < 0 ? 0 : at >= height ? height - 1 : at;
      const from = sy * toWidth * channels;
      const to = y * toWidth * channels;
      for (let j = 0; j < toWidth * channels; j++) out[to + j] += w * rows[from + j];
    }
  }
  return out;
}
