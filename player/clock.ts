/**
 * The clock the player's transport runs on. Production uses the monotonic
 * clock; tests use `VirtualClock` and advance it, so no test sleeps.
 * @module
 */

/** An opaque timer handle returned by `Clock.setTimer`. */
export type TimerId = unknown;

/** Milliseconds since an arbitrary origin, and timers on the same scale. */
export interface Clock {
  /** Current time in milliseconds; never decreases. */
  now(): number;
  /** Calls `fn` once the clock reaches `at` (milliseconds, same scale as `now`). */
  setTimer(at: number, fn: () => void): TimerId;
  /** Cancels a timer; unknown ids are ignored. */
  clearTimer(id: TimerId): void;
}

/** Real time from `performance.now()`. */
export class MonotonicClock implements Clock {
  now(): number {
    return performance.now();
  }

  setTimer(at: number, fn: () => void): TimerId {
    return setTimeout(fn, Math.max(0, at - performance.now()));
  }

  clearTimer(id: TimerId): void {
    clearTimeout(id as number);
  }
}

interface PendingTimer {
  id: number;
  at: number;
  fn: () => void;
}

/**
 * A clock that moves only when told. `advance` fires due timers in time
 * order, with `now()` equal to each timer's due time while it runs.
 *
 * @example
 * ```ts
 * const clock = new VirtualClock();
 * clock.setTimer(500, () => console.log(clock.now())); // logs 500
 * clock.advance(1000);
 * ```
 */
export class VirtualClock implements Clock {
  #now: number;
  #nextId = 1;
  #timers: PendingTimer[] = [];

  /** Starts at `start` milliseconds (default 0). */
  constructor(start = 0) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimer(at: number, fn: () => void): TimerId {
    const id = this.#nextId++;
    this.#timers.push({ id, at: Math.max(at, this.#now), fn });
    return id;
  }

  clearTimer(id: TimerId): void {
    this.#timers = this.#timers.filter((t) => t.id !== id);
  }

  /** Moves time forward by `ms`, firing every timer that falls due on the way. */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`Cannot advance the clock: ${ms} is not >= 0`);
    const end = this.#now + ms;
    while (true) {
      let next: PendingTimer | undefined;
      for (const t of this.#timers) {
        if (t.at <= end && (!next || t.at < next.at || (t.at === next.at && t.id < next.id))) {
          next = t;
        }
      }
      if (!next) break;
      const fired = next;
      this.#timers = this.#timers.filter((t) => t !== fired);
      this.#now = fired.at;
      fired.fn();
    }
    this.#now = end;
  }

  /** How many timers are pending; lets tests check nothing leaks. */
  get pendingTimers(): number {
    return this.#timers.length;
  }
}

/**
 * A real-time clock that follows the show clock of the player's rig group (docs/rigs.md, Outputs
 * on the show clock): `base` plus a shift the service sets (`clock.shift`, its show clock's
 * offset moved since it synced), so Clips started on it, and the output's frames drawn on it,
 * run at the group's show time's rate and not at this machine's own. It never goes back: a
 * shift down holds the clock still until `base` catches up. A timer armed before a shift fires
 * when `base` reaches its time as it was then (off by the shift's change, ms).
 *
 * @example
 * ```ts
 * const clock = new FollowingClock(new MonotonicClock());
 * clock.shift(0.4); // the service's show clock ran 0.4 ms fast since it synced
 * ```
 */
export class FollowingClock implements Clock {
  readonly #base: Clock;
  #shiftMs = 0;
  #last = -Infinity;

  constructor(base: Clock) {
    this.#base = base;
  }

  /** The shift now, ms: this clock minus `base`'s reading (before holding still). */
  get shiftMs(): number {
    return this.#shiftMs;
  }

  now(): number {
    this.#last = Math.max(this.#last, this.#base.now() + this.#shiftMs);
    return this.#last;
  }

  setTimer(at: number, fn: () => void): TimerId {
    return this.#base.setTimer(at - this.#shiftMs, fn);
  }

  clearTimer(id: TimerId): void {
    this.#base.clearTimer(id);
  }

  /** Follows a new shift, ms (finite). */
  shift(ms: number): void {
    if (!Number.isFinite(ms)) throw new RangeError(`Cannot shift the clock by ${ms} ms`);
    this.#shiftMs = ms;
  }
}
