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

/** A change of shift up to this is slewed, ms; a larger one is stepped (the page's bound too). */
export const SHIFT_STEP_MS = 500;
/** How much faster or slower the clock runs while it slews a change of shift (ShowClock's 5%). */
export const SHIFT_SLEW_RATE = 0.05;

interface FollowingTimer {
  at: number;
  fn: () => void;
  baseId: TimerId;
}

/**
 * A real-time clock that follows the show clock of the player's rig group (docs/rigs.md, Outputs
 * on the show clock): `base` plus a shift the service sets (`clock.shift`, its show clock's
 * offset moved since it synced), so Clips started on it, and the output's frames drawn on it,
 * run at the group's show time's rate and not at this machine's own. The first shift told is its
 * base (a restarted player does not jump by the shift of hours: only the rate matters, its Clips
 * restart from their saved positions). A change of shift is slewed, the clock running up to 5%
 * fast or slow until it agrees, as the show clock slews; a change above half a second is stepped:
 * forward at once, down by holding the clock still until `base` catches up. It never goes back.
 * Timers fire when this clock reaches their time, re-armed at each change of shift.
 *
 * @example
 * ```ts
 * const clock = new FollowingClock(new MonotonicClock());
 * clock.shift(0.4); // the service's show clock ran 0.4 ms fast since it synced
 * ```
 */
export class FollowingClock implements Clock {
  readonly #base: Clock;
  #toldMs = 0;
  /** The first shift told (null before): later ones apply relative to it. */
  #origin: number | null = null;
  /** The shift applied runs from `from` toward `to` since base time `start`, ms. */
  #slew = { from: 0, to: 0, start: 0 };
  #last = -Infinity;
  #nextId = 1;
  readonly #timers = new Map<number, FollowingTimer>();

  constructor(base: Clock) {
    this.#base = base;
  }

  /** The last shift told, ms (the service's figure; the clock slews toward it from its first). */
  get shiftMs(): number {
    return this.#toldMs;
  }

  now(): number {
    const at = this.#base.now();
    this.#last = Math.max(this.#last, at + this.#shiftAt(at));
    return this.#last;
  }

  setTimer(at: number, fn: () => void): TimerId {
    const id = this.#nextId++;
    const timer: FollowingTimer = { at, fn, baseId: undefined };
    this.#timers.set(id, timer);
    this.#arm(id, timer);
    return id;
  }

  clearTimer(id: TimerId): void {
    const timer = this.#timers.get(id as number);
    if (!timer) return;
    this.#base.clearTimer(timer.baseId);
    this.#timers.delete(id as number);
  }

  /** Follows a new shift, ms (finite): slewed, or stepped above `SHIFT_STEP_MS`. */
  shift(ms: number): void {
    if (!Number.isFinite(ms)) throw new RangeError(`Cannot shift the clock by ${ms} ms`);
    this.now(); // pins the time reached: a step down holds it still
    this.#toldMs = ms;
    this.#origin ??= ms;
    const to = ms - this.#origin;
    const start = this.#base.now();
    const current = this.#shiftAt(start);
    const from = Math.abs(to - current) > SHIFT_STEP_MS ? to : current;
    this.#slew = { from, to, start };
    for (const [id, timer] of this.#timers) {
      this.#base.clearTimer(timer.baseId);
      this.#arm(id, timer);
    }
  }

  /** The shift applied at base time `at`. */
  #shiftAt(at: number): number {
    const { from, to, start } = this.#slew;
    const moved = SHIFT_SLEW_RATE * Math.max(0, at - start);
    return to >= from ? Math.min(to, from + moved) : Math.max(to, from - moved);
  }

  /** The base time at which `at` + the shift then reaches `at` (in the past: due now). */
  #baseAt(at: number): number {
    const { from, to, start } = this.#slew;
    if (at >= start + Math.abs(to - from) / SHIFT_SLEW_RATE + to) return at - to;
    if (at <= start + from) return at - from;
    const rate = Math.sign(to - from) * SHIFT_SLEW_RATE;
    return (at - from + rate * start) / (1 + rate);
  }

  #arm(id: number, timer: FollowingTimer): void {
    // Held still above its time (after a step down): due now.
    const due = timer.at <= this.now() ? this.#base.now() : this.#baseAt(timer.at);
    timer.baseId = this.#base.setTimer(due, () => {
      // A base clock firing a little early (a rounded timeout): armed again for the rest.
      if (this.now() < timer.at - 1e-6) return this.#arm(id, timer);
      this.#timers.delete(id);
      timer.fn();
    });
  }
}
