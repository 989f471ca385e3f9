/**
 * The time the supervisor watches the player by: a reading and a repeating
 * tick. Production uses the monotonic clock and `setInterval`; tests pass a
 * clock they advance, so a hang verdict or a slow answer is tested without
 * waiting for time to pass.
 * @module
 */

/** Milliseconds on a monotonic scale, and a repeating timer on it. */
export interface WatchClock {
  /** Now, ms; never decreases. */
  now(): number;
  /** Calls `fn` every `ms` until the returned function is called. */
  every(ms: number, fn: () => void): () => void;
}

/** The real clock: `performance.now()` and `setInterval`. */
export const REAL_CLOCK: WatchClock = {
  now: () => performance.now(),
  every(ms, fn) {
    const timer = setInterval(fn, ms);
    return () => clearInterval(timer);
  },
};
