/**
 * A log of events that a test waits on by progress: `waitFor` resolves with
 * the first event (from the cursor on) that matches, as soon as it arrives.
 * The cap only bounds a hang; no assertion depends on time.
 */

/** Events in order, and waiters on them. */
export class EventLog<T> {
  readonly events: T[] = [];
  #waiters: { match: (e: T) => boolean; resolve: (e: T) => void }[] = [];

  /** Records `event` and wakes the waiters it matches. */
  push(event: T): void {
    this.events.push(event);
    this.#waiters = this.#waiters.filter((w) => {
      if (!w.match(event)) return true;
      w.resolve(event);
      return false;
    });
  }

  /** The first event from index `from` on that matches (waiting for it, up to `capMs`). */
  waitFor(match: (e: T) => boolean, what: string, from = 0, capMs = 30_000): Promise<T> {
    const seen = this.events.slice(from).find(match);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`Never saw ${what}; saw ${JSON.stringify(this.events.slice(-20))}`));
      }, capMs);
      this.#waiters.push({
        match,
        resolve: (e) => {
          clearTimeout(timer);
          resolve(e);
        },
      });
    });
  }
}
