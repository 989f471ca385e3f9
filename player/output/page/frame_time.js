// @ts-check
// The time the output's frames are drawn at, following the player's clock (the group's show
// clock in a rig group, docs/rigs.md), and how the page's estimate of that clock is kept and how
// far it may be off. Pure: fed the page's times, so it is tested without a browser
// (tests/player/output/frame_clock_test.ts) and the page imports it as it is.

/** A frame more than this far from the clock is stepped to it, not slewed, ms (as media are). */
const STEP_MS = 500;
/** The most a slew moves the drawn time, as a share of the time between frames (as media are). */
const SLEW = 0.2;
/** Within this of the clock a correction is done, ms. */
const AGREED_MS = 0.5;

/**
 * The drawn time of each frame. It runs on the page's clock and follows the player's by the
 * media's drift rule (`clock.js` `follow`) with a half-frame deadband: nothing while within half
 * a frame; beyond it, slewed (up to 20% faster or slower) until it agrees, not only until it is
 * back within the deadband (it would sit at its edge); stepped forward when more than half a
 * second behind. It never goes back: more than half a second ahead of the clock (the clock held
 * still, or a new estimate of it is lower), the frames hold still until the clock reaches them.
 */
export class FrameTime {
  /** The drawn time minus page time, ms; null before the first frame. @type {number | null} */
  #offset = null;
  #lastAt = 0;
  #isCorrecting = false;
  /** Held still at the last drawn time until the clock reaches it. */
  #isHolding = false;
  #lastDrawn = -Infinity;
  /** How far the last frame's time lagged the player's clock, ms (positive: behind). */
  lagMs = 0;

  /**
   * The time the frame at page time `t` draws at, given the player's clock `target` then; how
   * far that lags it is `lagMs` after (a field: the draw path allocates nothing a frame).
   * @param {number} t
   * @param {number} target
   * @param {number} frameMs
   * @returns {number}
   */
  next(t, target, frameMs) {
    if (this.#offset === null) {
      this.#offset = target - t;
      this.#lastAt = t;
      this.#lastDrawn = target;
      this.lagMs = 0;
      return target;
    }
    const lag = target - (t + this.#offset);
    if (Math.abs(lag) > frameMs / 2) this.#isCorrecting = true;
    if (lag < -STEP_MS) this.#isHolding = true;
    if (this.#isHolding) this.#offset = Math.max(this.#lastDrawn, target) - t;
    else if (lag > STEP_MS) this.#offset += lag;
    else if (this.#isCorrecting) {
      const most = SLEW * Math.max(0, t - this.#lastAt);
      this.#offset += Math.max(-most, Math.min(most, lag));
    }
    // Never back: a slew down runs at 80% at least, so this guards the hold alone.
    const clock = Math.max(this.#lastDrawn, t + this.#offset);
    this.#offset = clock - t;
    if (Math.abs(target - clock) < AGREED_MS) this.#isCorrecting = this.#isHolding = false;
    this.#lastAt = t;
    this.#lastDrawn = clock;
    this.lagMs = target - clock;
    return clock;
  }

  /** Forgets the drawn time (a virtual clock draws as read): the next frame starts afresh. */
  reset() {
    this.#offset = null;
    this.#isCorrecting = this.#isHolding = false;
    this.#lastDrawn = -Infinity;
    this.lagMs = 0;
  }
}

/**
 * The page's ping samples with a new one, the last eight: all of them forgotten when the new one
 * is further from the best than both round trips allow (the true offset is within half a round
 * trip of each), for then the player's clock moved (it follows the show clock) and the older
 * samples tell of a mapping that is gone.
 * @param {{rtt: number, offset: number}[]} samples
 * @param {{rtt: number, offset: number}} sample
 */
export function keptSamples(samples, sample) {
  const best = samples.reduce((a, b) => (b.rtt < a.rtt ? b : a), sample);
  const hasMoved = Math.abs(sample.offset - best.offset) > (sample.rtt + best.rtt) / 2 + 1;
  return [...(hasMoved ? [] : samples), sample].slice(-8);
}

/**
 * The page's estimate of the player's clock from its ping samples (one at least): the offset of
 * the one with the shortest round trip, and how far it may be off, half that round trip (the
 * player read its clock somewhere within it), ms.
 * @param {{rtt: number, offset: number}[]} samples
 * @returns {{offset: number, errorMs: number}}
 */
export function estimateOf(samples) {
  const best = samples.reduce((a, b) => (b.rtt < a.rtt ? b : a));
  return { offset: best.offset, errorMs: best.rtt / 2 };
}
