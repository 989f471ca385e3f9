/**
 * The clock filter of one peer, after NTP's (RFC 5905, 10): the last eight bursts' best samples;
 * the one chosen is the one with the least distance (half its delay, plus the peer's own error,
 * plus what the clocks may have drifted apart since it was taken), its jitter the RMS of the
 * others' offsets about it. The estimated error is that distance: the true offset lies within
 * it as long as the two clocks' rates differ by less than `driftPpm`.
 * @module
 */
import type { ClockSample } from "./sample.ts";

/** What the filter estimates of a peer's clock. */
export interface ClockEstimate {
  /** The peer's clock minus ours, ms. */
  readonly offset: number;
  /** The bound on its error, ms (see the module's doc). */
  readonly error: number;
  /** The RMS of the kept samples' offsets about the chosen one, ms. */
  readonly jitter: number;
  /** The chosen sample's round-trip delay, ms. */
  readonly delay: number;
  /** The chosen sample's time on our clock, ms. */
  readonly at: number;
}

/** Options of a `ClockFilter`. */
export interface ClockFilterOptions {
  /** How many samples it keeps (NTP: 8). */
  readonly size?: number;
  /**
   * How fast two rigs' clocks may drift apart, parts per million: a sample's error grows by it
   * as it ages (NTP's PHI is 15 ppm for a disciplined clock; 100 covers two free-running quartz
   * oscillators of +-50 ppm each).
   */
  readonly driftPpm?: number;
}

/** The filter of one peer's samples. */
export class ClockFilter {
  #samples: ClockSample[] = [];
  #size: number;
  #drift: number;

  /** An empty filter. */
  constructor(options: ClockFilterOptions = {}) {
    this.#size = options.size ?? 8;
    this.#drift = (options.driftPpm ?? 100) / 1e6;
    if (!(this.#size >= 1)) throw new RangeError(`Cannot keep ${this.#size} samples: at least 1`);
  }

  /** Adds a sample, dropping the oldest beyond the filter's size. */
  add(sample: ClockSample): void {
    this.#samples = [...this.#samples, sample].slice(-this.#size);
  }

  /** Forgets every sample (the peer changed, or its clock was stepped). */
  clear(): void {
    this.#samples = [];
  }

  /** How many samples it holds. */
  get size(): number {
    return this.#samples.length;
  }

  /** The estimate at our clock's `now`, or null before the first sample. */
  estimate(now: number): ClockEstimate | null {
    const distance = (s: ClockSample) =>
      s.delay / 2 + s.peerError + this.#drift * Math.max(0, now - s.at);
    let best: ClockSample | null = null;
    for (const s of this.#samples) if (best === null || distance(s) < distance(best)) best = s;
    if (best === null) return null;
    const others = this.#samples.filter((s) => s !== best);
    const jitter = others.length === 0 ? 0 : Math.sqrt(
      others.reduce((sum, s) => sum + (s.offset - best.offset) ** 2, 0) / others.length,
    );
    return { offset: best.offset, error: distance(best), jitter, delay: best.delay, at: best.at };
  }
}
