/**
 * The run's mode and one row of the reliability table: the shapes `_tally.ts` makes and
 * `_report.ts` checks, apart from `_types.ts` (which imports `_tally.ts`), so no import circles.
 * @module
 */

/** `--short` (CI, the whole suite under 3 minutes) or `--full` (the numbers for notes). */
export type Mode = "short" | "full";

/** A figure a probe can be required to report (`Probe.figures`). */
export type Figure =
  | "serviceRss"
  | "playerRss"
  | "localServed"
  | "acked"
  | "localP99"
  | "received";

/** One row of the table. */
export interface ProbeResult {
  probe: string;
  /** Inputs tried: fuzzed messages, edits sent, connections opened, bodies sent. */
  inputs: number;
  /** The fewest inputs this mode must reach (the 10^5 per transport of a full run), or 0. */
  requiredInputs: number;
  /** What the run itself fell short of (too few player kills), each a missed target. */
  shortfalls: string[];
  /** The service (or, for the player fuzz, the player) exited on its own. */
  crashes: number;
  /** A health check or a request not answered within its bound. */
  hangs: number;
  /** 5xx answers whose code is not documented for the situation. */
  undocumented5xx: number;
  /** Edits (or tokens) acknowledged; null where it does not apply. */
  acked: number | null;
  /** Acknowledged but not found afterwards. */
  lost: number | null;
  /** Retried keys applied more than once (extra copies found); null where it does not apply. */
  duplicates: number | null;
  /** Peak resident memory, MB (VmHWM), of the service and of its player. */
  peakRssMb: { service: number | null; player: number | null };
  /** The probe's own peak RSS target, MB, where it is not `TARGETS.maxRssMb`. */
  maxRssMb?: number;
  /** Whether local clients were served throughout; null where not checked. */
  localServed: boolean | null;
  /** The player's exits that no probe caused (a crash, or a restart as hung). */
  playerRestarts: number;
  /** p99 of the local requests timed during the probe (the watchdog's /health at least), ms. */
  localP99Ms: number | null;
  seconds: number;
  /** What was measured beyond the numbers, and why a target was missed. */
  notes: string[];
  /** Why the probe could not run to its end (a failure of the tool or the machine), else null. */
  error: string | null;
  /**
   * The figures the probe must report (`Probe.figures`, and those its run committed it to:
   * `_figures.ts`): null here is a missed target.
   */
  figures: Figure[];
  /**
   * The inputs the service (or the player) itself counted as received (its counters, or its
   * answers), where a probe reads them (`_figures.ts`, `countReceived`); else absent or null.
   */
  received?: number | null;
  /** Why the probe did not run at all (the machine cannot do what it needs): a missed target. */
  notRun?: string;
}
