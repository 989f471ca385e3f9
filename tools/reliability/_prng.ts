/**
 * A seeded pseudo-random source (mulberry32), so a failing run can be
 * replayed with the same `--seed`: every probe draws only from its own `Rng`.
 * @module
 */

/** 32-bit FNV-1a of a string: derives a probe's own seed from the run seed and its name. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * Seeded random numbers with the helpers the fuzzers need.
 * @example
 * ```ts
 * const rng = new Rng(42);
 * rng.pick(["GET", "POST"]); // the same answer for seed 42, every run
 * ```
 */
export class Rng {
  #state: number;

  /** Starts the sequence at `seed` (any 32-bit integer). */
  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** A float in [0, 1) (mulberry32). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** An integer in [min, max]. */
  range(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  /** `n` random bytes. */
  bytes(n: number): Uint8Array<ArrayBuffer> {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = this.int(256);
    return out;
  }

  /**
   * A string of `n` characters drawn from `alphabet`; past 1,024 characters a
   * random block repeats (a long string's content matters less than its length).
   */
  string(n: number, alphabet = "abcdefghijklmnopqrstuvwxyz0123456789-_"): string {
    let out = "";
    for (let i = 0; i < Math.min(n, 1024); i++) out += alphabet[this.int(alphabet.length)];
    return n <= 1024 ? out : out.repeat(Math.ceil(n / 1024)).slice(0, n);
  }

  /** A length skewed towards small values, sometimes large: 0..max. */
  size(max: number): number {
    const r = this.next();
    if (r < 0.6) return this.int(Math.min(max, 16) + 1);
    if (r < 0.9) return this.int(Math.min(max, 1024) + 1);
    return this.int(max + 1);
  }

  /** A child generator for a sub-task, so adding draws in one task leaves the others unchanged. */
  fork(label: string): Rng {
    return new Rng(hash32(label) ^ this.int(0x100000000));
  }
}
