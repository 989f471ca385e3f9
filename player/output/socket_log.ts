/**
 * The one log line a minute, at most, about the output's sockets closed or refused: a page
 * that sent what it may not, too much or too fast, and connections refused at the upgrade (no
 * secret, another origin). Whatever a local program sends, the log grows by a line a minute:
 * the first fault is said at once, the next ones are counted and said, with their counts, in
 * the first line a minute or more later.
 * @module
 */

/** How often a line may be written, ms. */
export const SOCKET_LOG_EVERY_MS = 60_000;

/** Counts of socket faults by kind, said in one line at most every `SOCKET_LOG_EVERY_MS`. */
export class SocketFaultLog {
  readonly #log: (message: string) => void;
  readonly #now: () => number;
  #lastLineAt = -Infinity;
  #counts = new Map<string, number>();
  /** Faults noted since the output started, by kind (tests and probes read them). */
  readonly totals = new Map<string, number>();

  /** `log` writes a WARN line; `now` is monotonic ms. */
  constructor(log: (message: string) => void, now: () => number) {
    this.#log = log;
    this.#now = now;
  }

  /**
   * A socket closed or refused: `kind` counts it (`not valid`, `too fast`, `too large`,
   * `refused`...), `what` says which and why (the last one is in the line).
   */
  note(kind: string, what: string): void {
    this.#counts.set(kind, (this.#counts.get(kind) ?? 0) + 1);
    this.totals.set(kind, (this.totals.get(kind) ?? 0) + 1);
    const now = this.#now();
    if (now - this.#lastLineAt < SOCKET_LOG_EVERY_MS) return;
    const total = [...this.#counts.values()].reduce((a, b) => a + b, 0);
    const kinds = [...this.#counts].map(([k, n]) => `${k} ${n}`).join(", ");
    this.#log(
      `Output: ${total} page socket${
        total === 1 ? "" : "s"
      } closed or refused (${kinds}), the last: ${what}; the next are counted, said at most once a minute`,
    );
    this.#lastLineAt = now;
    this.#counts.clear();
  }
}
