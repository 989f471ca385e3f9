/**
 * Waiting for a condition on a connection that changes as data arrives:
 * `wake()` after each change, `until()` to wait with a bound. Shared by the
 * raw HTTP and WebSocket clients of the probes.
 * @module
 */

/** The waiters of one connection. */
export class Waiters {
  #waiters = new Set<() => void>();

  /** Waits until `done()` holds or `timeoutMs` passes; returns whether it held. */
  async until(done: () => boolean, timeoutMs: number): Promise<boolean> {
    const deadline = performance.now() + timeoutMs;
    while (!done()) {
      const left = deadline - performance.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.#waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, left);
        this.#waiters.add(wake);
      });
    }
    return true;
  }

  /** Lets every waiter check its condition again. */
  wake(): void {
    for (const wake of [...this.#waiters]) wake();
  }
}
