/**
 * The one log line a minute, at most, about the output's sockets closed or refused: a page
 * that sent what it may not, too much or too fast, and connections refused at the upgrade (no
 * secret, another origin, a second page). Whatever a local program sends, the log grows by a
 * line a minute: the first fault is said at once, the next ones are counted and said, with
 * their counts, a minute after the line before (by the next fault then, or by a timer when
 * none comes).
 * @module
 */

/** How often a line may be written, ms. */
export const SOCKET_LOG_EVERY_MS = 60_000;

/** Runs `run` in `ms` milliseconds; the function returned cancels it. */
export type Schedule = (run: () => void, ms: number) => () => void;

/** `setTimeout`, cancelled with `clearTimeout`. */
const realSchedule: Schedule = (run, ms) => {
  const id = setTimeout(run, ms);
  return () => clearTimeout(id);
};

/** Counts of socket faults by kind, said in one line at most every `SOCKET_LOG_EVERY_MS`. */
export class SocketFaultLog {
  readonly #log: (message: string) => void;
  readonly #now: () => number;
  readonly #schedule: Schedule;
  #lastLineAt = -Infinity;
  #counts = new Map<string, number>();
  /** The last fault counted and not said yet. */
  #lastWhat = "";
  /** Cancels the timer that says the faults counted since the last line, if one is set. */
  #cancelFlush: (() => void) | null = null;
  /** Faults noted since the output started, by kind (tests and probes read them). */
  readonly totals = new Map<string, number>();

  /**
   * `log` writes a WARN line; `now` is monotonic ms; `schedule` sets the timer that says the
   * faults counted after the last line (tests give a virtual one).
   */
  constructor(log: (message: string) => void, now: () => number, schedule = realSchedule) {
    this.#log = log;
    this.#now = now;
    this.#schedule = schedule;
  }

  /**
   * A socket closed or refused: `kind` counts it (`not valid`, `too fast`, `too large`,
   * `refused`, `second page`...), `what` says which and why (the last one is in the line).
   */
  note(kind: string, what: string): void {
    this.#counts.set(kind, (this.#counts.get(kind) ?? 0) + 1);
    this.totals.set(kind, (this.totals.get(kind) ?? 0) + 1);
    this.#lastWhat = what;
    const wait = this.#lastLineAt + SOCKET_LOG_EVERY_MS - this.#now();
    if (wait <= 0) this.#write();
    else this.#cancelFlush ??= this.#schedule(() => this.#write(), wait);
  }

  /**
   * Says `message` at once: the output page's own socket closing (only a page with the secret of
   * now has it, one at a time, and it loads again a second after: a line a reconnect at most).
   */
  say(message: string): void {
    this.#log(message);
  }

  /** Cancels the timer (the output stops): what it would have said is not said. */
  close(): void {
    this.#cancelFlush?.();
    this.#cancelFlush = null;
  }

  /** Says the faults counted since the last line, if any. */
  #write(): void {
    this.close();
    if (this.#counts.size === 0) return;
    const total = [...this.#counts.values()].reduce((a, b) => a + b, 0);
    const kinds = [...this.#counts].map(([k, n]) => `${k} ${n}`).join(", ");
    this.#log(
      `Output: ${total} page socket${
        total === 1 ? "" : "s"
      } closed or refused (${kinds}), the last: ${this.#lastWhat}; the next are counted, said at most once a minute`,
    );
    this.#lastLineAt = this.#now();
    this.#counts.clear();
  }
}
