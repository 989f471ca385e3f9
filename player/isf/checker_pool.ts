/**
 * The player's ISF checker processes (`check_child.ts`), kept between checks so that a check
 * does not pay a process's start (0.9 s at a load of 13, 3 to 7 s at 18: `deno run` resolves
 * the config and loads the check's modules anew). A check takes an idle process, or starts
 * one; once it answered, its process is kept for the next check, or ended so that all it took
 * of memory goes back to the system: after a check cut short (a bound of its work reached, a
 * check that failed, its memory ceiling passed, no progress, no answer), once its heap after
 * a check is past ISF_CHECKER_HEAP_MB, after ISF_CHECKER_CHECKS checks, and when it has been
 * idle ISF_CHECKER_IDLE_MS (so a player no one edits keeps none). At most ISF_CHECKER_SLOTS
 * are kept, one a check that may run at once (`check_memo.ts`'s ISF_CHECKS_AT_ONCE). A kept
 * process is unref'd: it keeps no player alive. Its verdicts are a fresh process's: each
 * check has its own work budget, starts with a full garbage collection and measures its heap
 * from there (`check_stdio.ts`).
 * @module
 */
import { type TimerClock } from "../../lib/progress_watch.ts";
import { ISF_CHECK_HEAP_MB } from "./bounds.ts";
import { CheckerProcess } from "./check_child.ts";

/** Checks a process answers at most before it is replaced. */
export const ISF_CHECKER_CHECKS = 64;

/**
 * The heap a process may hold after a check, MB, to be given another (half the ceiling of a
 * check: a process that held more is replaced, so what it took goes back to the system).
 */
export const ISF_CHECKER_HEAP_MB = ISF_CHECK_HEAP_MB / 2;

/** How long an idle process is kept, ms: a player no one edits keeps no checker. */
export const ISF_CHECKER_IDLE_MS = 10_000;

/** Idle processes kept at most: one a check that runs at once (ISF_CHECKS_AT_ONCE). */
export const ISF_CHECKER_SLOTS = 2;

/** Real time, on timers that keep no player alive. */
const UNREF_CLOCK: TimerClock = {
  now: () => performance.now(),
  setTimer: (at, fn) => {
    const id = setTimeout(fn, Math.max(0, at - performance.now()));
    Deno.unrefTimer(id);
    return id;
  },
  clearTimer: (id) => clearTimeout(id as number),
};

/** How the pool keeps its processes (the constants above by default). */
export interface CheckerPoolOptions {
  readonly slots?: number;
  readonly checks?: number;
  readonly heapMb?: number;
  readonly idleMs?: number;
  /** The clock of the idle timers (real time; a test's virtual one). */
  readonly clock?: TimerClock;
}

/** A process taken for one check. */
export interface CheckerLease {
  readonly process: CheckerProcess;
  /** Whether it answered checks before (a fresh one is started for the lease otherwise). */
  readonly isWarm: boolean;
}

/** What a check's answer says of its process. */
export interface CheckerAnswered {
  /** Its heap after the check, MB. */
  readonly heapMb: number;
  /** Whether the check was cut short (its process is ended whatever else). */
  readonly retire: boolean;
}

interface Idle {
  readonly process: CheckerProcess;
  readonly key: string;
  readonly timer: unknown;
}

/** Checker processes kept between checks, by command line. */
export class CheckerPool {
  readonly #slots: number;
  readonly #checks: number;
  readonly #heapMb: number;
  readonly #idleMs: number;
  readonly #clock: TimerClock;
  readonly #idle: Idle[] = [];
  /** Processes started so far (for tests and the benches). */
  started = 0;

  /** A pool kept as `options` say. */
  constructor(options: CheckerPoolOptions = {}) {
    this.#slots = options.slots ?? ISF_CHECKER_SLOTS;
    this.#checks = options.checks ?? ISF_CHECKER_CHECKS;
    this.#heapMb = options.heapMb ?? ISF_CHECKER_HEAP_MB;
    this.#idleMs = options.idleMs ?? ISF_CHECKER_IDLE_MS;
    this.#clock = options.clock ?? UNREF_CLOCK;
  }

  /** Idle processes kept now. */
  get idle(): number {
    return this.#idle.length;
  }

  /** A process of `command` for one check: the last kept (`isFresh`: never), else a new one. */
  take(command: readonly string[], { isFresh = false } = {}): CheckerLease {
    const key = JSON.stringify(command);
    const at = isFresh ? -1 : this.#idle.findLastIndex((idle) => idle.key === key);
    if (at >= 0) {
      const [{ process, timer }] = this.#idle.splice(at, 1) as [Idle];
      this.#clock.clearTimer(timer);
      if (!process.isEnded) {
        process.isReferenced = true;
        return { process, isWarm: true };
      }
    }
    this.started++;
    return { process: new CheckerProcess(command), isWarm: false };
  }

  /** Gives back the process of `command` whose check answered: kept, or ended. */
  give(command: readonly string[], process: CheckerProcess, answered: CheckerAnswered): void {
    const isSpent = answered.retire || process.checks >= this.#checks ||
      answered.heapMb > this.#heapMb;
    if (isSpent || process.isEnded) return process.end();
    process.rest();
    const idle: Idle = {
      process,
      key: JSON.stringify(command),
      timer: this.#clock.setTimer(this.#clock.now() + this.#idleMs, () => this.#drop(idle)),
    };
    this.#idle.push(idle);
    while (this.#idle.length > this.#slots) this.#drop(this.#idle[0]!);
  }

  /** Ends every idle process (the next check starts one). */
  close(): void {
    for (const idle of [...this.#idle]) this.#drop(idle);
  }

  #drop(idle: Idle): void {
    const at = this.#idle.indexOf(idle);
    if (at >= 0) this.#idle.splice(at, 1);
    this.#clock.clearTimer(idle.timer);
    idle.process.end();
  }
}

/** The player's checker processes (ISF_CHECKER_SLOTS kept at most). */
export const ISF_CHECKERS: CheckerPool = new CheckerPool();
