/**
 * Bundles with a future timetag, run at that time on the player's clock.
 * A timetag is wall-clock time (NTP); its distance from now is added to the
 * player's clock as the read model knows it (`ReadModel.playerNow`), and the
 * bundle runs when the player's clock reaches that reading: on a real clock
 * by a timer, on the virtual clock of tests when `clock.advance` moves it
 * there (`ReadModel.watchClock`). "Immediately" (1) or a time already past
 * runs at once.
 * @module
 */
import type { TimeTag } from "osc-min";
import { CueportError } from "../core/mod.ts";

/** Seconds from 1900 (NTP's epoch) to 1970. */
const NTP_TO_UNIX_SECONDS = 2_208_988_800;

/** The timetag in Unix ms, or null for "immediately". */
export function timetagMs([seconds, fraction]: TimeTag): number | null {
  if (seconds === 0 && fraction <= 1) return null;
  return (seconds - NTP_TO_UNIX_SECONDS) * 1000 + (fraction * 1000) / 2 ** 32;
}

/**
 * The retry key of a message of an OSC bundle: its sender's address (not its port: a desk may
 * send to each rig from a socket of its own), the bundle's timetag and the message's place in
 * it; null for a bundle of timetag "immediately" (1), which carries no key.
 */
export function bundleKey(
  sender: string,
  timetag: TimeTag,
  index: number,
): string | null {
  const [seconds, fraction] = timetag;
  if (seconds === 0 && fraction <= 1) return null;
  return `osc.${sender}.${seconds}.${fraction}.${index}`;
}

/**
 * The key of an OSC message outside a timetagged bundle, sent to a rig of a group: its sender's
 * address. Not a retry key (the runner keeps no outcome for it): the group runs the same action
 * from the same sender taken on two rigs for about one show time once (`server/rigs/dedupe.ts`).
 */
export function senderKey(sender: string): string {
  return `~osc.${sender}`;
}

/** What the scheduler reads the player's clock through. */
export interface PlayerClock {
  /** The player's clock now, ms. */
  playerNow(): number;
  readonly isClockVirtual: boolean;
  watchClock(listener: () => void): () => void;
}

/** Bundles waiting for their time; at most `maxPending`. */
export class BundleScheduler {
  #clock: PlayerClock;
  #pending: Array<{ at: number; run: () => void }> = [];
  #timer: ReturnType<typeof setTimeout> | null = null;
  #unwatch: () => void;
  #maxPending: number;

  /** Watches the player's clock. */
  constructor(clock: PlayerClock, options: { maxPending?: number } = {}) {
    this.#clock = clock;
    this.#maxPending = options.maxPending ?? 1000;
    this.#unwatch = clock.watchClock(() => this.#due());
  }

  /** Bundles waiting. */
  get size(): number {
    return this.#pending.length;
  }

  /**
   * Runs `run` when the player's clock is `delayMs` past its reading now.
   * @throws {CueportError} RATE_LIMITED when `maxPending` bundles wait
   */
  schedule(delayMs: number, run: () => void): void {
    if (this.#pending.length >= this.#maxPending) {
      throw new CueportError(
        "RATE_LIMITED",
        `Too many bundles waiting for their time: at most ${this.#maxPending}`,
        { retryAfterSeconds: 1 },
      );
    }
    const at = this.#clock.playerNow() + delayMs;
    const index = this.#pending.findIndex((p) => p.at > at);
    this.#pending.splice(index < 0 ? this.#pending.length : index, 0, { at, run });
    this.#arm();
  }

  /** Drops what waits. */
  close(): void {
    this.#unwatch();
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    this.#pending = [];
  }

  #due(): void {
    const now = this.#clock.playerNow();
    while (this.#pending.length > 0 && this.#pending[0]!.at <= now) {
      const { run } = this.#pending.shift()!;
      try {
        run();
      } catch {
        // a bundle that fails must not stop the ones after it
      }
    }
    this.#arm();
  }

  #arm(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    // A virtual clock moves only by `clock.advance`, which `watchClock` reports.
    if (this.#pending.length === 0 || this.#clock.isClockVirtual) return;
    const wait = Math.max(0, this.#pending[0]!.at - this.#clock.playerNow());
    this.#timer = setTimeout(() => this.#due(), wait);
  }
}
