/**
 * Peaks per pixel column: the lowest and highest sample over every channel
 * (the envelope of all channels, which never cancels as a mix can) and the
 * RMS of the column.
 * @module
 */

/** Per-column statistics. */
export interface Peaks {
  min: Float32Array;
  max: Float32Array;
  rms: Float32Array;
}

/** Accumulates columns over a stream whose length in frames is known. */
export class ColumnPeaks {
  readonly #width: number;
  readonly #frames: number;
  readonly #channels: number;
  readonly #min: Float32Array;
  readonly #max: Float32Array;
  readonly #sumSq: Float64Array;
  readonly #count: Float64Array;
  #seen = 0;

  /** `width` columns over `frames` frames of `channels` interleaved channels. */
  constructor(width: number, frames: number, channels: number) {
    this.#width = width;
    this.#frames = Math.max(1, frames);
    this.#channels = channels;
    this.#min = new Float32Array(width).fill(Infinity);
    this.#max = new Float32Array(width).fill(-Infinity);
    this.#sumSq = new Float64Array(width);
    this.#count = new Float64Array(width);
  }

  /** Adds the next `frames` frames (interleaved samples). */
  add(samples: Float32Array, frames: number): void {
    const ch = this.#channels, w = this.#width, total = this.#frames;
    let f = 0;
    while (f < frames) {
      const global = this.#seen + f;
      const col = Math.min(w - 1, Math.floor((global * w) / total));
      // The frames of this block that fall in the same column.
      const colEnd = Math.min(frames, Math.ceil(((col + 1) * total) / w) - this.#seen);
      const end = Math.max(f + 1, colEnd);
      let lo = this.#min[col]!, hi = this.#max[col]!, sq = 0;
      for (let i = f * ch, stop = end * ch; i < stop; i++) {
        const s = samples[i]!;
        if (s < lo) lo = s;
        if (s > hi) hi = s;
        sq += s * s;
      }
      this.#min[col] = lo;
      this.#max[col] = hi;
      this.#sumSq[col] = this.#sumSq[col]! + sq;
      this.#count[col] = this.#count[col]! + (end - f) * ch;
      f = end;
    }
    this.#seen += frames;
  }

  /** The columns; a column no frame reached (a file shorter than the width) is silent. */
  result(): Peaks {
    const w = this.#width;
    const rms = new Float32Array(w);
    const min = this.#min.slice(), max = this.#max.slice();
    for (let c = 0; c < w; c++) {
      if (this.#count[c]! === 0) {
        min[c] = 0;
        max[c] = 0;
      } else rms[c] = Math.sqrt(this.#sumSq[c]! / this.#count[c]!);
    }
    return { min, max, rms };
  }
}
