/**
 * Actions that run after their time (protocol 1.14, `due` in `action.run`): a rig group's action
 * scheduled at a show time, whose timer fired late on a loaded machine, starts its Clips (and its
 * Song) where they would be had it run on time, as show systems chase a late cue: the position is
 * the lateness times the speed, in the Clip's direction. Bounded: an action more than
 * `ACTION_LATE_MAX_MS` late starts from the beginning, and says so.
 * @module
 */
import { ACTION_LATE_MAX_MS } from "../../protocol/methods.ts";

/** How late an action runs, as measured where it runs. */
export interface Lateness {
  /** How late it ran, ms (0: on time, or no `due`). */
  readonly byMs: number;
  /** What its starts catch up, ms: `byMs`, or 0 when it is more than `ACTION_LATE_MAX_MS`. */
  readonly catchUpMs: number;
  /**
   * When a rig group decided the action, Unix ms (`at`, 1.15: the same on every rig): a recording
   * it starts is named by it. Absent: the machine's clock.
   */
  readonly at?: number;
}

/** On time: nothing to catch up. */
export const ON_TIME: Lateness = { byMs: 0, catchUpMs: 0 };

/**
 * The lateness of an action due at `due` (Unix ms; absent: now) run at `now` (the same clock).
 * An action early (a clock read a hair apart) is on time.
 */
export function latenessOf(due: number | undefined, now: number): Lateness {
  if (due === undefined || !(now > due)) return ON_TIME;
  const byMs = now - due;
  return { byMs, catchUpMs: byMs <= ACTION_LATE_MAX_MS ? byMs : 0 };
}

/** The note an outcome's message ends with when its action ran late ("" on time). */
export function lateNote(late: Lateness): string {
  if (late.byMs === 0) return "";
  const ms = Math.round(late.byMs);
  return late.catchUpMs > 0
    ? ` (${ms} ms late: what it started is where it would be)`
    : ` (${ms} ms late, more than ${ACTION_LATE_MAX_MS} ms: what it started starts from the beginning)`;
}

/** Counts of the actions that ran late, since the player started. */
export class LateActions {
  /** Ran late, their starts caught up. */
  caughtUp = 0;
  /** Ran more than `ACTION_LATE_MAX_MS` late: their starts began from the beginning. */
  tooLate = 0;

  /** Counts `late` (nothing on time). */
  count(late: Lateness): void {
    if (late.byMs === 0) return;
    if (late.catchUpMs > 0) this.caughtUp++;
    else this.tooLate++;
  }
}
