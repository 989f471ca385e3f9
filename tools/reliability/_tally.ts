/**
 * Counting what a probe sees: inputs, crashes, hangs, undocumented 5xx,
 * acknowledged and lost items, peak memory, and a few examples of each
 * failure for the notes.
 * @module
 */
import { ErrorCode } from "../../server/core/errors.ts";
import { PeakMemory } from "./_proc.ts";
import { TARGETS } from "./_report.ts";
import type { ProbeResult } from "./_result.ts";

/**
 * The 5xx answers the docs promise, by code: the player is (re)starting, a budget is full, the
 * data dir's disk is full (issue 40), and a refused action, which the 6.0 interface answers 500
 * whatever the reason (its section 7; docs/domain.md, rule 7): a valid action of the catalog the
 * show's state refuses (`RESUME_IN` with nothing paused) is no fault.
 */
const DOCUMENTED_5XX: ReadonlyMap<string, number> = new Map([
  ["NOT_READY", 503],
  ["TOO_MANY_CONNECTIONS", 503],
  ["TIMEOUT", 504],
  ["DISK_FULL", 507],
  ["ACTION_FAILED", 500],
]);

const EXAMPLES = 3;

/** The HTTP status of an error code (a WebSocket error has only the code). */
export function statusOfCode(code: string): number | null {
  return (ErrorCode as Record<string, number>)[code] ?? null;
}

/**
 * Whether an answer is a 5xx the docs do not promise (a target of every probe: 0).
 * `SERVER_ERROR` and `UNAVAILABLE` count: a fuzzer should find neither an
 * unexpected exception nor a state the client can change reported as the
 * server's (no output runs is 409 `NO_OUTPUT`).
 */
export function isUndocumented5xx(status: number | null, code: string | null): boolean {
  if (status === null || status < 500) return false;
  return code === null || DOCUMENTED_5XX.get(code) !== status;
}

/** A probe's running counts. */
export class Tally {
  inputs = 0;
  requiredInputs = 0;
  crashes = 0;
  hangs = 0;
  acked: number | null = null;
  lost: number | null = null;
  duplicates: number | null = null;
  localServed: boolean | null = null;
  /** The player's exits no probe caused. */
  playerRestarts = 0;
  /** Round trips of local requests (the watchdog's /health, and a probe's own), ms. */
  readonly localMs: number[] = [];
  /** Peaks by role: "service", "player". */
  readonly memory: PeakMemory = new PeakMemory();
  #fiveXx = new Map<string, number>();
  #examples = new Map<string, string[]>();
  #notes: string[] = [];
  #shortfalls: string[] = [];
  /** Undocumented 5xx of rows absorbed (`absorb`): counted, listed in their own notes. */
  #absorbed5xx = 0;

  /**
   * Counts an answer if it is an undocumented 5xx; `where` groups them
   * ("POST /api/v1/edit"), `input` describes what was sent (kept for the
   * first of each group).
   */
  answer(status: number | null, code: string | null, where: string, input?: () => string): void {
    if (!isUndocumented5xx(status, code)) return;
    const key = `${status} ${code ?? "(no JSON code)"} on ${where}`;
    if (!this.#fiveXx.has(key) && input) this.example(`first ${key}`, input());
    this.undocumented(key, 1);
  }

  /** Adds `n` undocumented 5xx answers under `key`. */
  undocumented(key: string, n: number): void {
    if (n > 0) this.#fiveXx.set(key, (this.#fiveXx.get(key) ?? 0) + n);
  }

  /**
   * One measure of a local client (a request, a session's ping): `localServed` stays null
   * until the first, and one failure is kept whatever follows.
   */
  served(isOk: boolean): void {
    this.localServed = (this.localServed ?? true) && isOk;
  }

  /** A hang, with what was waited for. */
  hang(what: string): void {
    this.hangs++;
    this.example("hang", what);
  }

  /** A crash, with what is known (exit code, the log's last lines). */
  crash(what: string): void {
    this.crashes++;
    this.example("crash", what);
  }

  /** Keeps the first few examples of a kind of failure for the notes. */
  example(kind: string, what: string): void {
    const list = this.#examples.get(kind) ?? [];
    if (list.length < EXAMPLES) list.push(what.length > 300 ? `${what.slice(0, 300)}...` : what);
    this.#examples.set(kind, list);
  }

  /** A free note (a measurement, a count). */
  note(text: string): void {
    this.#notes.push(text);
  }

  /** Something the run had to do and did not (a missed target of its own). */
  shortfall(text: string): void {
    this.#shortfalls.push(text);
  }

  /**
   * Adds a row made by another process (a probe's part run inside a network namespace): its
   * counts, peaks, notes and shortfalls; its local p99 stands for its local round trips.
   */
  absorb(row: ProbeResult): void {
    this.inputs += row.inputs;
    this.crashes += row.crashes;
    this.hangs += row.hangs;
    this.playerRestarts += row.playerRestarts;
    this.#absorbed5xx += row.undocumented5xx;
    if (row.localServed !== null) this.localServed = (this.localServed ?? true) && row.localServed;
    if (row.localP99Ms !== null) this.localMs.push(row.localP99Ms);
    for (const role of ["service", "player"] as const) {
      const mb = row.peakRssMb[role];
      if (mb !== null) this.memory.record(role, { rss: mb * 1024, hwm: mb * 1024 });
    }
    this.#notes.push(...row.notes);
    this.#shortfalls.push(...row.shortfalls);
  }

  /** The row. */
  result(probe: string, seconds: number): ProbeResult {
    let undocumented = this.#absorbed5xx;
    for (const n of this.#fiveXx.values()) undocumented += n;
    const fiveXx = [...this.#fiveXx].sort((a, b) => b[1] - a[1]).slice(0, 6)
      .map(([key, n]) => `${n}x ${key}`);
    const notes = [...this.#notes];
    for (const role of ["service", "player"]) {
      const peak = this.memory.peakMb(role);
      if (peak !== null && peak >= TARGETS.maxRssMb) {
        notes.push(`${role} RSS: peak ${peak} MB, last sampled ${this.memory.lastMb(role)} MB`);
      }
    }
    if (fiveXx.length > 0) notes.push(`undocumented 5xx: ${fiveXx.join("; ")}`);
    for (const [kind, list] of this.#examples) notes.push(`${kind}: ${list.join(" | ")}`);
    return {
      probe,
      inputs: this.inputs,
      requiredInputs: this.requiredInputs,
      shortfalls: [...this.#shortfalls],
      crashes: this.crashes,
      hangs: this.hangs,
      undocumented5xx: undocumented,
      acked: this.acked,
      lost: this.lost,
      duplicates: this.duplicates,
      peakRssMb: { service: this.memory.peakMb("service"), player: this.memory.peakMb("player") },
      localServed: this.localServed,
      playerRestarts: this.playerRestarts,
      localP99Ms: percentile(this.localMs, 0.99),
      seconds,
      notes,
      figures: [],
      error: null,
    };
  }
}

/** The `q` quantile of `values` (nearest rank), rounded to 0.1; null when empty. */
export function percentile(values: readonly number[], q: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const value = sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * q) - 1)]!;
  return Math.round(value * 10) / 10;
}
