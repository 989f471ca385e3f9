/**
 * Tells a worker that is slow from one that makes no progress at all (a
 * fault, not a verdict): the worker reports its work, and only a worker that
 * reported none over two looks in a row, `periodMs` apart on the injected
 * clock, is given up on. A busy machine slows the reports, never stops them;
 * two looks in a row (with the event loop run between them) keep a thread
 * that was itself held up from taking reports it has not read yet for
 * silence. The ISF check's process (`player/isf/apart.ts`) and the picture
 * workers (`server/media/pool.ts`) are watched so.
 * @module
 */

/** The clock a watch looks on: the player's `Clock` is one; `MONOTONIC_TIMER_CLOCK` by default. */
export interface TimerClock {
  /** Milliseconds, never decreasing. */
  now(): number;
  /** Calls `fn` once the clock reaches `at`. */
  setTimer(at: number, fn: () => void): unknown;
  /** Cancels a timer. */
  clearTimer(id: unknown): void;
}

/** Real time: `performance.now()` and `setTimeout`. */
export const MONOTONIC_TIMER_CLOCK: TimerClock = {
  now: () => performance.now(),
  setTimer: (at, fn) => setTimeout(fn, Math.max(0, at - performance.now())),
  clearTimer: (id) => clearTimeout(id as number),
};

/** A watch over one worker's progress; `stop()` it once the worker answered. */
export class ProgressWatch {
  readonly #clock: TimerClock;
  readonly #periodMs: number;
  readonly #onStall: () => void;
  #hasMoved = false;
  #quietLooks = 0;
  #timer: unknown;

  /** Watches from now; `onStall` runs once, when no progress came over two looks. */
  constructor(clock: TimerClock, periodMs: number, onStall: () => void) {
    this.#clock = clock;
    this.#periodMs = periodMs;
    this.#onStall = onStall;
    this.#arm();
  }

  /** The worker reported work. */
  progress(): void {
    this.#hasMoved = true;
  }

  /** Ends the watch. */
  stop(): void {
    if (this.#timer !== undefined) this.#clock.clearTimer(this.#timer);
    this.#timer = undefined;
  }

  #arm(): void {
    this.#timer = this.#clock.setTimer(this.#clock.now() + this.#periodMs, () => this.#look());
  }

  #look(): void {
    this.#quietLooks = this.#hasMoved ? 0 : this.#quietLooks + 1;
    this.#hasMoved = false;
    if (this.#quietLooks >= 2) {
      this.#timer = undefined;
      return this.#onStall();
    }
    this.#arm();
  }
}
