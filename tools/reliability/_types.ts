/**
 * The shapes every probe shares: what it is given, what it reports.
 * @module
 */
import type { Rng } from "./_prng.ts";
import type { Tally } from "./_tally.ts";

/** `--short` (CI, the whole suite under 3 minutes) or `--full` (the numbers for notes). */
export type Mode = "short" | "full";

/** What a probe is given. */
export interface ProbeContext {
  /** The run's seed (each probe derives its own `rng` from it and its name). */
  seed: number;
  mode: Mode;
  /** This probe's random source. */
  rng: Rng;
  /** Where the probe counts what it sees; the row is made from it, even if the probe throws. */
  tally: Tally;
  /** A progress line on stderr. */
  log(message: string): void;
}

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
  /** Why the probe did not run at all (the machine cannot do what it needs): a missed target. */
  notRun?: string;
}

/**
 * Thrown by a probe that cannot run here (no root for network namespaces): its row says
 * `NOT RUN` with the reason, and counts as missed, never as passed.
 */
export class NotRun extends Error {
  /** `reason`: what is missing. */
  constructor(reason: string) {
    super(reason);
    this.name = "NotRun";
  }
}

/** A probe: one file, one concern. */
export interface Probe {
  /** Its name for `--only`: the file name. */
  name: string;
  /** One line: what it does to the service. */
  summary: string;
  /** Its peak RSS target, MB, when the work it asks for needs more than `TARGETS.maxRssMb`. */
  maxRssMb?: number;
  /** Runs it, bounded in time, counting into `context.tally`. */
  run(context: ProbeContext): Promise<void>;
}
