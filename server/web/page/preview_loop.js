// @ts-check
// The pacing of the Output tab's live preview, apart from the page so tests run it on a virtual
// clock: one request at a time, a few a second, paused while hidden, backing off on refusals (at
// least as long as a 429's Retry-After asks).

/** Time from one request's start to the next's: about 3 pictures a second. */
export const PERIOD_MS = 333;
/** The least wait after a picture, however slow it came: the output's capture is never back to back. */
export const MIN_GAP_MS = 150;
/** The first wait after a refusal, doubled with each one after it up to `MAX_BACKOFF_MS`. */
export const FIRST_BACKOFF_MS = 1000;
/** The longest wait between tries while the preview is refused. */
export const MAX_BACKOFF_MS = 10_000;

/**
 * A refusal as the loop reads it: the error a fetch or a show threw, with the service's code and
 * the least wait it asked for (`ApiError`'s), when it said.
 * @typedef {Error & {code?: string, retryAfterMs?: number}} Refusal
 */
/**
 * What the loop is given (see `PreviewLoop`).
 * @template Picture, Timer
 * @typedef {object} PreviewDeps
 * @property {(signal: AbortSignal) => Promise<Picture | null>} fetchFrame
 * @property {(picture: Picture) => Promise<void> | void} show
 * @property {(error: Refusal) => void} fail
 * @property {() => void} recover
 * @property {() => boolean} isVisible
 * @property {() => number} now
 * @property {(fn: () => void, ms: number) => Timer} setTimer
 * @property {(timer: Timer | null) => void} clearTimer
 */

/**
 * How long to wait before the next request: `elapsed` ms the last one took, `failures` in a row,
 * and the wait the service asked for (`Retry-After`, ms) if it did.
 * @param {number} elapsed
 * @param {number} failures
 * @param {number} [retryAfterMs]
 * @returns {number}
 */
export function nextDelay(elapsed, failures, retryAfterMs = 0) {
  if (failures > 0) {
    return Math.max(retryAfterMs, Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (failures - 1)));
  }
  return Math.max(PERIOD_MS - elapsed, MIN_GAP_MS);
}

/**
 * Fetches pictures one at a time and hands each to `show` (which resolves once it is on screen),
 * while `isVisible()`; a fetch answering null (304, the same picture) shows nothing; `fail(error)`
 * on a refusal (`error.retryAfterMs`, when the service said, is the least wait); `recover()` when a
 * null answer follows refusals (the picture on screen is the output's again: clear the refusal, as
 * `show` does). `resume()` after a hidden page shows again,
 * `stop()` for good (aborts the request under way). The clock and the timer are injected
 * (tests), as `{ now, setTimer, clearTimer }`.
 * @template Picture what a fetch answers (the page's: a Blob)
 * @template Timer what `setTimer` answers (the page's: a timeout's id)
 */
export class PreviewLoop {
  /** @type {PreviewDeps<Picture, Timer>} */
  #deps;
  /** @type {Timer | null} */
  #timer = null;
  /** @type {AbortController | null} */
  #request = null;
  #failures = 0;
  #isStopped = false;

  /**
   * `deps`: `{ fetchFrame(signal), show(blob), fail(error), recover(), isVisible(), now, setTimer,
   * clearTimer }`.
   * @param {PreviewDeps<Picture, Timer>} deps
   */
  constructor(deps) {
    this.#deps = deps;
  }

  /** Starts (or, after a pause, resumes) at once, unless a request is already under way. */
  resume() {
    if (this.#isStopped || this.#request) return;
    this.#deps.clearTimer(this.#timer);
    this.#timer = null;
    this.#tick();
  }

  /** Pauses: the request under way is dropped, no next one is planned until `resume()`. */
  pause() {
    this.#deps.clearTimer(this.#timer);
    this.#timer = null;
    this.#request?.abort();
    this.#request = null;
  }

  /** Stops for good. */
  stop() {
    this.#isStopped = true;
    this.pause();
  }

  async #tick() {
    this.#timer = null;
    if (this.#isStopped || !this.#deps.isVisible()) return;
    const request = new AbortController();
    this.#request = request;
    const started = this.#deps.now();
    let retryAfterMs = 0;
    try {
      const blob = await this.#deps.fetchFrame(request.signal);
      if (request.signal.aborted) return;
      if (blob !== null) await this.#deps.show(blob);
      else if (this.#failures > 0) this.#deps.recover();
      this.#failures = 0;
    } catch (error) {
      if (request.signal.aborted) return;
      this.#failures++;
      retryAfterMs = /** @type {Refusal | undefined} */ (error)?.retryAfterMs ?? 0;
      this.#deps.fail(/** @type {Refusal} */ (error));
    }
    if (request.signal.aborted || this.#request !== request) return;
    this.#request = null;
    const delay = nextDelay(this.#deps.now() - started, this.#failures, retryAfterMs);
    this.#timer = this.#deps.setTimer(() => this.#tick(), delay);
  }
}
