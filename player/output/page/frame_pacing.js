// @ts-check
// The output page's frame pacing: which animation frames draw (the display's rate), the frames
// dropped, the render scale they are drawn at (render_scale.js), and the figures of each second
// the page reports (frames, drift, lag from the player's clock, each new state's first frame).
// The page (page.js) draws; this keeps the count. A frame makes nothing here: no closure, no
// record (tests/player/output/gl_objects_test.ts samples the frame's allocations).
import { JUDGED_AFTER_MS, ScaleController } from "./render_scale.js";

/** @typedef {import("../../../protocol/output.ts").FromPage} FromPage */
/** @typedef {Extract<FromPage, {type: "report"}>} Report */
/** @typedef {Report["firstFrames"]} FirstFrames */
/**
 * A second's figures so far (`lagMs`: the frames' lags from the player's clock, |lag| summed;
 * `lagMaxMs`: the worst; `clockErrorMs`: the worst error of the clock estimate they lag).
 * @typedef {{frames: number, dropped: number, driftMs: number, lagMs: number, lagMaxMs: number, clockErrorMs: number, firstFrames: FirstFrames}} Stats
 */
/**
 * What a second's report takes from the pacing.
 * @typedef {Pick<Report, "frames" | "dropped" | "driftMs" | "frameLagMs" | "frameLagMaxMs" | "clockErrorMs" | "firstFrames" | "renderScale" | "scaleReason">} SecondFigures
 */

/** The first frames of new states a second keeps (the latest). */
const FIRST_FRAMES = 256;

/** The page's frames and seconds: which frames draw, at what scale, and what a second reports. */
export class FramePacing {
  #stats = freshStats();
  /**
   * The player's frame budget (its `scale` message; null: the display's frame period).
   * @type {number | null}
   */
  #frameBudgetMs = null;
  /** @type {ScaleController | null} */
  #scaler = null;
  #scalerFps = 0;
  /** @type {string | null} */
  #scaleReason = null;
  #lastFrameAt = 0;
  /**
   * Page time from which frames are judged for the render scale (`JUDGED_AFTER_MS` after the first).
   * @type {number | null}
   */
  #judgedFrom = null;

  /**
   * The render scale to draw at, for a display of `fps`.
   * @param {number} fps
   */
  scale(fps) {
    return this.#controller(fps).scale;
  }

  /**
   * The player's frame budget, ms (null: the display's period): the scale is judged afresh.
   * @param {number | null} ms
   */
  setBudget(ms) {
    this.#frameBudgetMs = ms;
    this.#scaler = null;
  }

  /** The page was hidden: the time until its next frame is no frame's. */
  resume() {
    this.#lastFrameAt = 0;
  }

  /**
   * An animation frame at page time `now`, for a display of `fps`: whether a display frame is
   * due (the page draws it). A due frame counts the frames dropped before it, and the time since
   * the one before goes to the render scale (not after a pause, nor in the page's first seconds,
   * when its media load and its programs compile).
   * @param {number} now
   * @param {number} fps
   */
  isDue(now, fps) {
    const period = 1000 / fps;
    const since = now - this.#lastFrameAt;
    if (since < period - 2) return false;
    if (this.#lastFrameAt > 0 && since > period * 1.5) {
      this.#stats.dropped += Math.round(since / period) - 1;
    }
    this.#judgedFrom ??= now + JUDGED_AFTER_MS;
    if (this.#lastFrameAt > 0 && now > this.#judgedFrom) this.#controller(fps).frame(since);
    this.#lastFrameAt = now;
    return true;
  }

  /**
   * A frame drawn, `lagMs` from the player's clock by an estimate of error `clockErrorMs`:
   * |lag| counts, so frames ahead and behind do not cancel.
   * @param {number} lagMs
   * @param {number} clockErrorMs
   */
  drawn(lagMs, clockErrorMs) {
    const stats = this.#stats;
    stats.frames++;
    stats.lagMs += Math.abs(lagMs);
    stats.lagMaxMs = Math.max(stats.lagMaxMs, Math.abs(lagMs));
    stats.clockErrorMs = Math.max(stats.clockErrorMs, clockErrorMs);
  }

  /**
   * The layers' drift from the clock at a sync, ms: the second keeps the worst.
   * @param {number} ms
   */
  drift(ms) {
    this.#stats.driftMs = Math.max(this.#stats.driftMs, ms);
  }

  /**
   * A new state's first frame (a change, not every frame), drawn at `clock`.
   * @param {number} seq
   * @param {number} clock
   */
  firstFrame(seq, clock) {
    const firstFrames = this.#stats.firstFrames;
    firstFrames.push({ seq, clock });
    if (firstFrames.length > FIRST_FRAMES) firstFrames.shift();
  }

  /**
   * A second of drawing ends: the scale follows it (a hidden page's seconds are not judged);
   * answers the second's figures, and the next second starts.
   * @param {number} fps
   * @param {boolean} isVisible
   * @returns {SecondFigures}
   */
  endSecond(fps, isVisible) {
    const controller = this.#controller(fps);
    const { scale, reason } = isVisible
      ? controller.second()
      : { scale: controller.scale, reason: this.#scaleReason };
    this.#scaleReason = reason;
    const stats = this.#stats;
    this.#stats = freshStats();
    return {
      frames: stats.frames,
      dropped: stats.dropped,
      driftMs: stats.driftMs,
      ...lagFigures(stats),
      firstFrames: stats.firstFrames,
      renderScale: scale,
      scaleReason: reason,
    };
  }

  /**
   * The render scale controller for the display's rate (a new one when the rate changes).
   * @param {number} fps
   */
  #controller(fps) {
    if (!this.#scaler || this.#scalerFps !== fps) {
      this.#scaler = new ScaleController({ fps, budgetMs: this.#frameBudgetMs });
      this.#scalerFps = fps;
      this.#scaleReason = null;
    }
    return this.#scaler;
  }
}

/**
 * A second's frame lag as reported: the mean of |lag| and the worst, and the clock estimate's
 * error, ms (null with no frame; the error null too while the estimate had no pong yet).
 * @param {Stats} stats
 */
function lagFigures(stats) {
  const round = (/** @type {number} */ ms) =>
    stats.frames > 0 && Number.isFinite(ms) ? Math.round(ms * 100) / 100 : null;
  return {
    frameLagMs: round(stats.lagMs / stats.frames),
    frameLagMaxMs: round(stats.lagMaxMs),
    clockErrorMs: round(stats.clockErrorMs),
  };
}

/**
 * A second's figures, none yet.
 * @returns {Stats}
 */
function freshStats() {
  return {
    frames: 0,
    dropped: 0,
    driftMs: 0,
    lagMs: 0,
    lagMaxMs: 0,
    clockErrorMs: 0,
    firstFrames: [],
  };
}
