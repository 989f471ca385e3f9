// @ts-check
// The output's render scale: when the page cannot draw the display's frames a second (a
// busy machine, software GL at 1080p), it draws a smaller picture (fewer pixels for every
// pass) scaled up to the canvas, and steps back up when it keeps up again. Pure: fed the
// time between frames drawn and asked once a second, so it is tested without a browser
// (tests/player/output/render_scale_test.ts) and the page imports it as it is. Beside it, ISF's
// TIMEDELTA and FRAMEINDEX from the frames drawn (`nextFrame`), pure for the same reason.

/** The scales, largest first: each step draws about half the pixels of the one before. */
export const RENDER_SCALES = [1, 0.75, 0.5, 0.35];
/**
 * A page's first milliseconds of drawing that nothing judges, from its first frame: its media
 * load and its programs compile. Neither the render scale (`page.js`) nor the player's "cannot
 * keep up" (`page_health.ts`) takes them.
 */
export const JUDGED_AFTER_MS = 3000;
/** Slow seconds in a row before a step down. */
export const DOWN_AFTER = 2;
/** Seconds in a row that keep up before a step up, at first (doubled by each step up that fails). */
export const UP_AFTER = 5;
/** The most seconds a step up waits for. */
export const UP_AFTER_MAX = 60;
/** A second is slow when a frame took longer than this many budgets on average. */
const SLOW = 1.2;
/** A second keeps up when a frame took at most this many budgets on average. */
const KEEPS_UP = 1.05;

/** @typedef {{scale: number, reason: string | null, isChanged: boolean}} ScaleAnswer */

/**
 * A controller for a display of `fps` frames a second, each frame given `budgetMs` (by default
 * the display's frame period; a tiny one makes every second slow, for tests). `frame(ms)` is
 * told each frame drawn with the time since the previous one; `second()` ends a second of
 * drawing and answers `{scale, reason, isChanged}`: the scale to draw at from now on and why
 * it is below 1 (null at 1).
 * @example
 * const scale = new ScaleController({ fps: 30 });
 * scale.frame(250); // a frame 250 ms after the one before
 * const { scale: s, isChanged } = scale.second();
 */
export class ScaleController {
  #fps;
  #budget;
  #step = 0;
  /** @type {string | null} */
  #reason = null;
  #frames = 0;
  #totalMs = 0;
  #slowSeconds = 0;
  #goodSeconds = 0;
  #upAfter = UP_AFTER;
  /** Whether the last change was a step up (a slow second soon after means it was too soon). */
  #isTryingUp = false;

  /** @param {{fps: number, budgetMs?: number | null}} options */
  constructor({ fps, budgetMs = null }) {
    this.#fps = fps;
    this.#budget = budgetMs ?? 1000 / fps;
  }

  /**
   * A frame was drawn `ms` after the one before (the first frame after a pause: not told).
   * @param {number} ms
   */
  frame(ms) {
    this.#frames++;
    this.#totalMs += ms;
  }

  /** The scale drawn at now. */
  get scale() {
    return at(this.#step);
  }

  /**
   * Ends a second: `{scale, reason, isChanged}`. A second without frames is not judged.
   * @returns {ScaleAnswer}
   */
  second() {
    const n = this.#frames, mean = n > 0 ? this.#totalMs / n : 0;
    this.#frames = 0;
    this.#totalMs = 0;
    const same = { scale: this.scale, reason: this.#reason, isChanged: false };
    if (n === 0) return same;
    const perSecond = Math.round(10_000 / mean) / 10;
    const drew = `${perSecond} frames a second of ${this.#fps} at scale ${this.scale}`;
    if (mean > this.#budget * SLOW) {
      this.#goodSeconds = 0;
      if (this.#isTryingUp) this.#upAfter = Math.min(this.#upAfter * 2, UP_AFTER_MAX);
      this.#isTryingUp = false;
      const isLowest = this.#step === RENDER_SCALES.length - 1;
      if (++this.#slowSeconds < DOWN_AFTER || isLowest) return same;
      return this.#change(this.#step + 1, `the page drew ${drew}`);
    }
    this.#slowSeconds = 0;
    if (mean > this.#budget * KEEPS_UP) {
      this.#goodSeconds = 0;
      return same;
    }
    this.#goodSeconds++;
    // A step up that held for long was right: the next one is tried as soon as the first.
    if (this.#isTryingUp && this.#goodSeconds >= UP_AFTER_MAX) {
      this.#isTryingUp = false;
      this.#upAfter = UP_AFTER;
    }
    if (this.#goodSeconds < this.#upAfter || this.#step === 0) return same;
    this.#isTryingUp = true;
    return this.#change(this.#step - 1, `the page drew ${drew}: one step back up`);
  }

  /**
   * Draws at step `to` from now on, for the reason `why`.
   * @param {number} to
   * @param {string} why
   * @returns {ScaleAnswer}
   */
  #change(to, why) {
    this.#step = to;
    this.#reason = at(to) === 1 ? null : why;
    this.#slowSeconds = 0;
    this.#goodSeconds = 0;
    return { scale: at(to), reason: this.#reason, isChanged: true };
  }
}

/**
 * The scale of step `i`.
 * @param {number} i
 */
function at(i) {
  return RENDER_SCALES[i] ?? 1;
}

/**
 * A `ScaleController` (the name its tests and older callers know).
 * @param {{fps: number, budgetMs?: number | null}} options
 */
export function createScaleController(options) {
  return new ScaleController(options);
}

/**
 * ISF's FRAMEINDEX (`index`: the frames drawn before this one) and TIMEDELTA (s), and the clock
 * of the last frame drawn (ms; null before the first).
 * @returns {{index: number, timeDelta: number, lastClock: number | null}}
 */
export function frameTimes() {
  return { index: -1, timeDelta: 0, lastClock: null };
}

/**
 * A frame is drawn at `clock` (ms): FRAMEINDEX counts the frames drawn before it, and TIMEDELTA
 * is the time since the last one drawn, by their clocks (ISF's spec: "the time (in seconds) that
 * have elapsed since the last frame was rendered"): a frame late or skipped is the longer, a
 * held virtual clock gives 0. The first is one display frame (`fps`), not the spec's 0, so that
 * a shader dividing by it or easing with it starts as it goes on.
 * @param {ReturnType<typeof frameTimes>} times
 * @param {number} clock
 * @param {number} fps
 */
export function nextFrame(times, clock, fps) {
  const last = times.lastClock;
  times.timeDelta = last === null ? 1 / fps : Math.max(0, clock - last) / 1000;
  times.lastClock = clock;
  times.index++;
}
