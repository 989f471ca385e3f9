/** Waiting for something that happens off the request path (a background write), without fixed sleeps. */

/**
 * Resolves once `check` holds, polling at the pace of `Poll` (every 20 ms for a cheap check);
 * rejects after `timeoutMs` (default 15 s) naming `what`, rather than hang.
 */
export async function until(
  what: string,
  check: () => Promise<boolean> | boolean,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  const poll = new Poll();
  while (!(await poll.check(check))) {
    if (performance.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await poll.pause();
  }
}

/**
 * The pace of a wait's checks: the next check comes 20 ms after the last, or twice the time the
 * last check took when that is longer (at most a second). A check that costs (a screenshot, a
 * frame from the browser, a process started) then takes at most a third of the machine's time
 * while the test waits, leaving the rest to what it waits for: on a busy machine a check polled
 * back to back competes with the very output it waits on.
 */
export class Poll {
  #lastMs = 0;

  /** Runs `check`, timing it. */
  async check(check: () => Promise<boolean> | boolean): Promise<boolean> {
    const started = performance.now();
    try {
      return await check();
    } finally {
      this.#lastMs = performance.now() - started;
    }
  }

  /** The pause before the next check, ms. */
  get pauseMs(): number {
    return Math.min(MAX_PAUSE_MS, Math.max(MIN_PAUSE_MS, 2 * this.#lastMs));
  }

  /** Waits `pauseMs`. */
  pause(): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, this.pauseMs));
  }
}

const MIN_PAUSE_MS = 20;
const MAX_PAUSE_MS = 1000;

/** The parsed JSON file at `path`, or undefined while it is missing or not whole. */
export async function readJsonIfThere(path: string): Promise<unknown> {
  try {
    return JSON.parse(await Deno.readTextFile(path));
  } catch {
    return undefined;
  }
}

/** A guard against a wait on something that moves forever but never gets there. */
const HANG_GUARD_MS = 600_000;

/**
 * Resolves once `check` holds, polling at the pace of `Poll`, for as long as `progress()` keeps
 * changing (a counter, a time of the last sign of life): it rejects naming `what` only when
 * `progress()` stayed the same for `noProgressMs`. A slow process on a busy machine is waited
 * for; a stuck one fails. `HANG_GUARD_MS` (10 minutes) bounds the whole wait.
 */
export async function untilProgress(
  what: string,
  check: () => Promise<boolean> | boolean,
  options: { progress: () => unknown; noProgressMs?: number },
): Promise<void> {
  const { progress, noProgressMs = 60_000 } = options;
  const startedAt = performance.now();
  let last = progress(), lastAt = startedAt;
  const poll = new Poll();
  while (!(await poll.check(check))) {
    const now = performance.now(), seen = progress();
    if (seen !== last) [last, lastAt] = [seen, now];
    if (now - lastAt > noProgressMs) {
      throw new Error(`Waited for ${what}: no progress for ${Math.round((now - lastAt) / 1000)} s`);
    }
    if (now - startedAt > HANG_GUARD_MS) {
      const minutes = HANG_GUARD_MS / 60_000;
      throw new Error(
        `Waited for ${what}: not there after ${minutes} min, though progress went on`,
      );
    }
    await poll.pause();
  }
}
