/**
 * The rig's own clock, as the show clock and the exchange read it: the same shape as the player's
 * `Clock` (`player/clock.ts`), so the player's `VirtualClock` stands in for it in tests and the
 * service can hand it its reading of the player's clock.
 * @module
 */

/** Milliseconds on a scale that never goes back, and timers on the same scale. */
export interface LocalClock {
  /** Now, ms. */
  now(): number;
  /** Calls `fn` once the clock reaches `at` (ms, same scale as `now`). */
  setTimer(at: number, fn: () => void): unknown;
  /** Cancels a timer; unknown ids are ignored. */
  clearTimer(id: unknown): void;
}

/**
 * The monotonic clock on an epoch scale: `performance.timeOrigin + performance.now()` (ms since
 * 1970 at the process's start, then monotonic; sub-microsecond here). Rigs whose system clocks
 * roughly agree then start with offsets of milliseconds, not of their uptimes.
 */
export const epochMonotonicClock: LocalClock = {
  now: () => performance.timeOrigin + performance.now(),
  setTimer(at, fn) {
    return setTimeout(fn, Math.max(0, at - (performance.timeOrigin + performance.now())));
  },
  clearTimer(id) {
    clearTimeout(id as number);
  },
};

/** `clock` moved by `skewMs` (a rig whose clock is off: tests and the probe inject it). */
export function skewedClock(clock: LocalClock, skewMs: number): LocalClock {
  return {
    now: () => clock.now() + skewMs,
    setTimer: (at, fn) => clock.setTimer(at - skewMs, fn),
    clearTimer: (id) => clock.clearTimer(id),
  };
}
