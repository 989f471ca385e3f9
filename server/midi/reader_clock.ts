/**
 * The timecode reader's clock in the player's time domain: on a player
 * whose clock is virtual (tests), the reader counts frames and silence on
 * that clock, so code a test sends while it moves the player's clock reads
 * the same as it would in real time; on a real clock, real time.
 * @module
 */
import { type ReaderClock, SYSTEM_READER_CLOCK } from "./timecode.ts";

/** What the clock reads the player's time from (`ReadModel` has this shape). */
export interface PlayerTimeSource {
  /** Whether the player's clock is virtual: it moves only when read again. */
  readonly isClockVirtual: boolean;
  /** The player's clock now, ms. */
  playerNow(): number;
  /** Calls `listener` after each new reading of the player's clock; answers the function that stops it. */
  watchClock(listener: () => void): () => void;
}

interface VirtualTimer {
  at: number;
  fn: () => void;
}

/**
 * A `ReaderClock` over the player's clock. While that clock is virtual,
 * `now()` is its reading and a timer fires when a new reading reaches its
 * time (in the order of their times, those of one time in the order set; a
 * cleared one never); otherwise it is `real` (by default `performance.now()`
 * and `setTimeout`). Which one is decided at each call: the player says
 * whether its clock is virtual only once it is up.
 *
 * @example
 * ```ts
 * const clock = new PlayerReaderClock(core.model);
 * const reader = new TimecodeReader({ clock, send });
 * // on stop: reader.close(); clock.close();
 * ```
 */
export class PlayerReaderClock implements ReaderClock {
  #source: PlayerTimeSource;
  #real: ReaderClock;
  /** Virtual timers by time; equal times in the order set. */
  #timers: VirtualTimer[] = [];
  #unwatch: () => void;

  /** Watches `source`'s clock until `close`. */
  constructor(source: PlayerTimeSource, real: ReaderClock = SYSTEM_READER_CLOCK) {
    this.#source = source;
    this.#real = real;
    this.#unwatch = source.watchClock(() => this.#fireDue());
  }

  /** The player's time when its clock is virtual, else real time (ms). */
  now(): number {
    return this.#source.isClockVirtual ? this.#source.playerNow() : this.#real.now();
  }

  /** Calls `fn` once the clock reaches `at` (ms, on `now()`'s clock). */
  setTimer(at: number, fn: () => void): unknown {
    if (!this.#source.isClockVirtual) return { real: this.#real.setTimer(at, fn) };
    const timer: VirtualTimer = { at, fn };
    const i = this.#timers.findIndex((t) => t.at > at);
    this.#timers.splice(i < 0 ? this.#timers.length : i, 0, timer);
    // Already due: fired soon, never inside the caller (as `setTimeout(fn, 0)` would).
    if (at <= this.#source.playerNow()) queueMicrotask(() => this.#fireDue());
    return timer;
  }

  /** Cancels a timer `setTimer` answered; one already fired or cleared is ignored. */
  clearTimer(id: unknown): void {
    if (id !== null && typeof id === "object" && "real" in id) {
      this.#real.clearTimer(id.real);
      return;
    }
    const i = this.#timers.indexOf(id as VirtualTimer);
    if (i >= 0) this.#timers.splice(i, 1);
  }

  /** Stops watching the player's clock and drops the virtual timers. */
  close(): void {
    this.#unwatch();
    this.#timers = [];
  }

  #fireDue(): void {
    if (!this.#source.isClockVirtual) return;
    const now = this.#source.playerNow();
    // One at a time: a timer may clear or set others.
    while (this.#timers.length > 0 && this.#timers[0]!.at <= now) {
      this.#timers.shift()!.fn();
    }
  }
}
