/**
 * The figures the benches print: percentiles of a list of timings.
 * @module
 */

/** The `q` quantile (0-1) of `xs`: the value at that rank of the sorted list. */
export function percentile(xs: readonly number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** The median and the 99th percentile of `xs`, one decimal. */
export function summary(xs: readonly number[]): { p50: number; p99: number } {
  return {
    p50: Number(percentile(xs, 0.5).toFixed(1)),
    p99: Number(percentile(xs, 0.99).toFixed(1)),
  };
}

/** One round of a paired comparison: the baseline's figure and the measured row's, back to back. */
export interface Pair {
  readonly baseline: number;
  readonly measured: number;
}

/** The ratios of a comparison paired per round: their median and their range. */
export interface PairedRatio {
  /** `measured / baseline` of each round, in round order. */
  readonly ratios: readonly number[];
  /** The median of the per-round ratios (of an even count, the mean of the middle two). */
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

/**
 * Pairs a comparison round by round: each round's ratio is taken from the two runs of that round
 * (baseline and measured, back to back), then the median and range of those ratios. Never the ratio
 * of two medians taken over different rounds: drift on a shared machine between rounds then shows
 * as a wide range, not as a skewed ratio. A round whose baseline is not above 0 is an error.
 */
export function pairedRatio(rounds: readonly Pair[]): PairedRatio {
  if (rounds.length === 0) throw new Error("pairedRatio: no rounds");
  const ratios = rounds.map(({ baseline, measured }, i) => {
    if (!(baseline > 0)) {
      throw new Error(`pairedRatio: round ${i + 1} has a baseline of ${baseline}`);
    }
    return measured / baseline;
  });
  const sorted = [...ratios].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  const median = sorted.length % 2 === 1
    ? sorted[middle]!
    : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return { ratios, median, min: sorted[0]!, max: sorted[sorted.length - 1]! };
}

/** `0.93 (0.88-0.97)`: the median of a paired ratio and its range, two decimals. */
export function formatRatio(r: PairedRatio): string {
  return `${r.median.toFixed(2)} (${r.min.toFixed(2)}-${r.max.toFixed(2)})`;
}
