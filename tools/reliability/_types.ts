/**
 * The shapes every probe shares: what it is given, what it reports.
 * @module
 */
import type { Rng } from "./_prng.ts";
import type { Figure, Mode } from "./_result.ts";
import type { Tally } from "./_tally.ts";

export type { Figure, Mode, ProbeResult } from "./_result.ts";

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
  /**
   * The figures it must report: one still null at its end (not measured) is a missed target,
   * and `acked` must be above 0 (a kill probe that acknowledged nothing tested nothing).
   */
  figures?: readonly Figure[];
  /** Runs it, bounded in time, counting into `context.tally`. */
  run(context: ProbeContext): Promise<void>;
}
