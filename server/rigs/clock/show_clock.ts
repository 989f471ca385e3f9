/**
 * The group's show time on this rig: the local clock plus an offset to the reference (the
 * leading rig's show time, measured by the exchange). Small corrections are slewed (show time
 * runs up to `maxSlewRate` fast or slow until it agrees, never backward), large ones stepped,
 * as chrony's `makestep` does; the first correction always steps. Actions scheduled at a show
 * time run when the local clock reaches the local time it maps to, re-armed whenever a
 * correction moves that mapping.
 * @module
 */
import { CueportError } from "../../core/mod.ts";
import { localAt, offsetAt, type Slew } from "./_slew.ts";
import type { LocalClock } from "./local_clock.ts";

/** What a correction did. */
export type Correction = "step" | "slew";

/** Options of a `ShowClock`. */
export interface ShowClockOptions {
  /** Corrections larger than this are stepped, ms (NTP's step threshold: 128). */
  readonly stepThresholdMs?: number;
  /** How much faster or slower show time may run while it slews (0.05: 50 ms a second). */
  readonly maxSlewRate?: number;
  /** How fast the error grows after a correction, ppm (the clocks' drift: 100). */
  readonly driftPpm?: number;
  /** At most this many actions wait for their show time (1000). */
  readonly maxPending?: number;
  /**
   * How far ahead of now an action may be scheduled, show ms (`SHOW_HORIZON_MS`: one hour).
   * Further is refused: a log entry cannot park an action for days, nor fill the pending set.
   */
  readonly horizonMs?: number;
}

/** The default horizon of `scheduleAt`: one hour of show time. */
export const SHOW_HORIZON_MS = 3_600_000;

/**
 * The longest timer armed on the local clock, ms: `setTimeout` fires at once beyond 2^31 - 1 ms
 * (24.8 days); a later show time is reached by re-arming in chunks of at most this.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

interface Pending {
  readonly show: number;
  readonly run: () => void;
  timer: unknown;
}

/**
 * Show time on this rig.
 *
 * @example
 * ```ts
 * const show = new ShowClock(epochMonotonicClock);
 * show.correct(estimate.offset, estimate.error); // from the exchange with the leader
 * show.scheduleAt(show.now() + 120, () => go()); // runs on every rig at that show time
 * ```
 */
export class ShowClock {
  #local: LocalClock;
  #slew: Slew;
  #measuredError = Infinity;
  #measuredAt = 0;
  #stepThreshold: number;
  #rate: number;
  #drift: number;
  #maxPending: number;
  #horizon: number;
  #pending = new Set<Pending>();
  #isLeading = false;
  #steps = 0;
  #slews = 0;

  /** Show time is local time (offset 0, error unknown) until the first correction or `lead`. */
  constructor(local: LocalClock, options: ShowClockOptions = {}) {
    this.#local = local;
    this.#stepThreshold = options.stepThresholdMs ?? 128;
    this.#rate = options.maxSlewRate ?? 0.05;
    this.#drift = (options.driftPpm ?? 100) / 1e6;
    this.#maxPending = options.maxPending ?? 1000;
    this.#horizon = options.horizonMs ?? SHOW_HORIZON_MS;
    if (!(this.#rate > 0 && this.#rate < 1)) {
      throw new RangeError(`Cannot slew at ${this.#rate}: the rate must be above 0 and below 1`);
    }
    this.#slew = { from: 0, to: 0, start: local.now(), rate: this.#rate };
  }

  /** Show time now, ms. */
  now(): number {
    return this.at(this.#local.now());
  }

  /** Show time at local time `local`, ms. */
  at(local: number): number {
    return local + offsetAt(this.#slew, local);
  }

  /** The local time at which show time reads `show`: when an action scheduled there must run. */
  toLocal(show: number): number {
    return localAt(this.#slew, show);
  }

  /** Show time minus local time now, ms. */
  get offset(): number {
    return offsetAt(this.#slew, this.#local.now());
  }

  /** Whether a correction (or `lead`) set it: before, show time is only this rig's clock. */
  get isSynced(): boolean {
    return this.#measuredError !== Infinity;
  }

  /**
   * How far show time may be from the reference now, ms: the last measurement's error, what the
   * clocks may have drifted since, and what is still being slewed (Infinity before the first).
   */
  get error(): number {
    if (this.#isLeading) return 0;
    const now = this.#local.now();
    const left = Math.abs(this.#slew.to - offsetAt(this.#slew, now));
    return this.#measuredError + this.#drift * Math.max(0, now - this.#measuredAt) + left;
  }

  /** Whether this rig's show time is the reference (`lead`), until the next correction. */
  get isLeading(): boolean {
    return this.#isLeading;
  }

  /** How many corrections were stepped and slewed. */
  get corrections(): { steps: number; slews: number } {
    return { steps: this.#steps, slews: this.#slews };
  }

  /**
   * Corrects toward `offset` (the reference's show time minus the local clock, ms, from the
   * exchange) known within `error` ms: stepped the first time or when more than the step
   * threshold away, else slewed. Waiting actions are re-armed on the new mapping.
   */
  correct(offset: number, error: number): Correction {
    if (!Number.isFinite(offset) || !(error >= 0)) {
      throw new RangeError(`Cannot correct the show clock by ${offset} ms within ${error} ms`);
    }
    const now = this.#local.now();
    const current = offsetAt(this.#slew, now);
    const isStep = !this.isSynced || Math.abs(offset - current) > this.#stepThreshold;
    this.#slew = { from: isStep ? offset : current, to: offset, start: now, rate: this.#rate };
    this.#measuredError = error;
    this.#measuredAt = now;
    this.#isLeading = false;
    if (isStep) this.#steps++;
    else this.#slews++;
    this.#rearm();
    return isStep ? "step" : "slew";
  }

  /**
   * This rig is the reference now: show time keeps its current mapping (a slew in progress is
   * finished where it stands), with no error until the next correction.
   */
  lead(): void {
    const now = this.#local.now();
    const current = offsetAt(this.#slew, now);
    this.#slew = { from: current, to: current, start: now, rate: this.#rate };
    this.#measuredError = 0;
    this.#measuredAt = now;
    this.#isLeading = true;
    this.#rearm();
  }

  /**
   * Runs `run` when show time reaches `show` (at once when it has); returns a function that
   * cancels it.
   * @throws {CueportError} INVALID_MESSAGE when `show` is not finite or beyond the horizon;
   * RATE_LIMITED when `maxPending` actions wait
   */
  scheduleAt(show: number, run: () => void): () => void {
    const ahead = show - this.now();
    if (!Number.isFinite(show) || ahead > this.#horizon) {
      throw new CueportError(
        "INVALID_MESSAGE",
        `Cannot schedule an action at show time ${show} ms (${ahead} ms ahead): at most ${this.#horizon} ms ahead of now`,
        { field: "showTime", horizonMs: this.#horizon },
      );
    }
    if (this.#pending.size >= this.#maxPending) {
      throw new CueportError(
        "RATE_LIMITED",
        `Too many actions waiting for their show time: at most ${this.#maxPending}`,
        { retryAfterSeconds: 1 },
      );
    }
    const pending: Pending = { show, run, timer: undefined };
    this.#pending.add(pending);
    this.#arm(pending);
    return () => {
      if (this.#pending.delete(pending)) this.#local.clearTimer(pending.timer);
    };
  }

  /** How many actions wait. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  /** Drops every waiting action. */
  close(): void {
    for (const p of this.#pending) this.#local.clearTimer(p.timer);
    this.#pending.clear();
  }

  /** Arms `pending`'s timer, at most `MAX_TIMER_MS` ahead: a longer wait re-arms when it fires. */
  #arm(pending: Pending): void {
    const at = this.toLocal(pending.show);
    const cap = this.#local.now() + MAX_TIMER_MS;
    if (at > cap) {
      pending.timer = this.#local.setTimer(cap, () => {
        if (this.#pending.has(pending)) this.#arm(pending);
      });
      return;
    }
    pending.timer = this.#local.setTimer(at, () => {
      if (!this.#pending.delete(pending)) return;
      try {
        pending.run();
      } catch {
        // one action that fails must not stop the others
      }
    });
  }

  #rearm(): void {
    for (const p of this.#pending) {
      this.#local.clearTimer(p.timer);
      this.#arm(p);
    }
  }
}
