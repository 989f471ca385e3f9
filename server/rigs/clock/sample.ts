/**
 * One exchange's four timestamps turned into an offset and a round-trip delay (RFC 5905, 8):
 * T1 the request left (our clock), T2 it arrived (the answerer's), T3 the answer left (the
 * answerer's), T4 it arrived (ours). The offset is exact when the two ways take the same time;
 * whatever the asymmetry, the true offset lies within half the delay of it.
 * @module
 */

/** One measured sample of a peer's clock against ours. */
export interface ClockSample {
  /** The peer's clock minus ours, ms: ((T2 - T1) + (T3 - T4)) / 2. */
  readonly offset: number;
  /** The round trip without the peer's own time: (T4 - T1) - (T3 - T2), ms. */
  readonly delay: number;
  /** Our clock when the answer arrived (T4), ms: how old the sample is. */
  readonly at: number;
  /** The peer's own error against the group's reference, ms (its answer said it). */
  readonly peerError: number;
}

/** The sample of one exchange (`peerError`: what the answer said of its own error). */
export function sampleOf(
  [t1, t2, t3, t4]: readonly [number, number, number, number],
  peerError = 0,
): ClockSample {
  return {
    offset: ((t2 - t1) + (t3 - t4)) / 2,
    delay: Math.max(0, (t4 - t1) - (t3 - t2)),
    at: t4,
    peerError,
  };
}

/** The best of a burst: the sample with the least delay (the least room for asymmetry); null for none. */
export function bestOfBurst(samples: readonly ClockSample[]): ClockSample | null {
  let best: ClockSample | null = null;
  for (const s of samples) if (best === null || s.delay < best.delay) best = s;
  return best;
}
