/**
 * Resampling: the centre-crop to a square (cover) and a separable filter that
 * averages areas when shrinking (a box filter over exact pixel coverage, so no
 * aliasing) and interpolates linearly when enlarging.
 * @module
 */
import type { Raster } from "./raster.ts";

/** For each output sample, the first source index and the weights from there. */
interface Taps {
  start: Int32Array;
  count: Int32Array;
  weights: Float32Array;
  stride: number;
}

/** Weights mapping the source span [from, from + length) onto `out` samples. */
function taps(from: number, length: number, out: number, limit: number): Taps {
  const scale = length / out; // source pixels per output pixel
  const stride = Math.ceil(scale) + 2;
  const start = new Int32Array(out), count = new Int32Array(out);
  const weights = new Float32Array(out * stride);
  for (let o = 0; o < out; o++) {
    let first: number, n = 0, sum = 0;
    const w = weights.subarray(o * stride, (o + 1) * stride);
    if (scale >= 1) {
      // Area average: the weight of a source pixel is how much of it the output pixel covers.
      const a = from + o * scale, b = a + scale;
      first = Math.max(0, Math.floor(a));
      for (let s = first; s < Math.min(limit, Math.ceil(b)); s++) {
        const cover = Math.min(b, s + 1) - Math.max(a, s);
        if (cover > 0) {
          w[n] = cover;
          sum += cover;
        }
        n++;
      }
    } else {
      // Linear interpolation between the two nearest source pixel centres.
      const centre = from + (o + 0.5) * scale - 0.5;
      const left = Math.floor(centre), t = centre - left;
      first = Math.min(Math.max(0, left), limit - 1);
      const second = Math.min(Math.max(0, left + 1), limit - 1);
      w[0] = 1 - t;
      n = 1;
      if (second !== first) {
        w[1] = t;
        n = 2;
      } else w[0] = 1;
      sum = w[0]! + (n === 2 ? w[1]! : 0);
    }
    for (let k = 0; k < n; k++) w[k] = w[k]! / sum;
    start[o] = first;
    count[o] = n;
  }
  return { start, count, weights, stride };
}

/**
 * Resamples the source rectangle (x, y, w, h), which may have fractional
 * edges, to `outW x outH`.
 */
export function resample(
  src: Raster,
  rect: { x: number; y: number; w: number; h: number },
  outW: number,
  outH: number,
): Raster {
  const tx = taps(rect.x, rect.w, outW, src.width);
  const ty = taps(rect.y, rect.h, outH, src.height);
  const rowFirst = ty.start[0]!;
  const rowLast = ty.start[outH - 1]! + ty.count[outH - 1]!;
  // Horizontal pass over the rows the vertical pass needs, into floats.
  const mid = new Float32Array((rowLast - rowFirst) * outW * 4);
  const s = src.data;
  for (let y = rowFirst; y < rowLast; y++) {
    const rowIn = y * src.width * 4, rowOut = (y - rowFirst) * outW * 4;
    for (let o = 0; o < outW; o++) {
      let r = 0, g = 0, b = 0, a = 0;
      const first = tx.start[o]!, n = tx.count[o]!, wi = o * tx.stride;
      for (let k = 0; k < n; k++) {
        const wt = tx.weights[wi + k]!, i = rowIn + (first + k) * 4;
        r += s[i]! * wt;
        g += s[i + 1]! * wt;
        b += s[i + 2]! * wt;
        a += s[i + 3]! * wt;
      }
      const j = rowOut + o * 4;
      mid[j] = r;
      mid[j + 1] = g;
      mid[j + 2] = b;
      mid[j + 3] = a;
    }
  }
  const out = new Uint8Array(outW * outH * 4);
  const rowLen = outW * 4;
  const acc = new Float32Array(rowLen);
  for (let o = 0; o < outH; o++) {
    const first = ty.start[o]! - rowFirst, n = ty.count[o]!, wi = o * ty.stride;
    acc.fill(0);
    for (let k = 0; k < n; k++) {
      const wt = ty.weights[wi + k]!, i = (first + k) * rowLen;
      for (let c = 0; c < rowLen; c++) acc[c] = acc[c]! + mid[i + c]! * wt;
    }
    // A Uint8Array store wraps around: round and clamp by hand.
    const j = o * rowLen;
    for (let c = 0; c < rowLen; c++) out[j + c] = Math.min(255, Math.max(0, Math.round(acc[c]!)));
  }
  return { width: outW, height: outH, data: out };
}

/**
 * The centre square of `src` (cover: the shorter side fills the square, the
 * longer side loses equal parts at both ends), resampled to `size x size`.
 */
export function coverSquare(src: Raster, size: number): Raster {
  const side = Math.min(src.width, src.height);
  const rect = { x: (src.width - side) / 2, y: (src.height - side) / 2, w: side, h: side };
  return resample(src, rect, size, size);
}
