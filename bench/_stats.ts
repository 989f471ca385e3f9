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
