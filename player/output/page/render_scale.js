// The output's render scale: when the page cannot draw the display's frames a second (a
// busy machine, software GL at 1080p), it draws a smaller picture (fewer pixels for every
// pass) scaled up to the canvas, and steps back up when it keeps up again. Pure: fed the
// time between frames drawn and asked once a second, so it is tested without a browser
// (tests/player/output/render_scale_test.ts) and the page imports it as it is.

/** The scales, largest first: each step draws about half the pixels of the one before. */
export const RENDER_SCALES = [1, 0.75, 0.5, 0.35];
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

/**
 * A controller for a display of `fps` frames a second, each frame given `budgetMs` (by default
 * the display's frame period; a tiny one makes every second slow, for tests). `frame(ms)` is
 * told each frame drawn with the time since the previous one; `second()` ends a second of
 * drawing and answers `{scale, reason, isChanged}`: the scale to draw at from now on and why
 * it is below 1 (null at 1).
 * @example
 * const scale = createScaleController({ fps: 30 });
 * scale.frame(250); // a frame 250 ms after the one before
 * const { scale: s, isChanged } = scale.second();
 * @param {{fps: number, budgetMs?: number | null}} options
 */
// long: the controller's closure, like a class: its counters and the two calls over them
export function createScaleController({ fps, budgetMs = null }) {
  const budget = budgetMs ?? 1000 / fps;
  let step = 0;
  let reason = null;
  let frames = 0;
  let totalMs = 0;
  let slowSeconds = 0;
  let goodSeconds = 0;
  let upAfter = UP_AFTER;
  /** Whether the last change was a step up (a slow second soon after means it was too soon). */
  let isTryingUp = false;

  /** @type {(i: number) => number} */
  const at = (i) => RENDER_SCALES[i] ?? 1;

  function change(to, why) {
    step = to;
    reason = at(step) === 1 ? null : why;
    slowSeconds = 0;
    goodSeconds = 0;
    return { scale: at(step), reason, isChanged: true };
  }

  return {
    /** A frame was drawn `ms` after the one before (the first frame after a pause: not told). */
    frame(ms) {
      frames++;
      totalMs += ms;
    },
    /** The scale drawn at now. */
    get scale() {
      return at(step);
    },
    /** Ends a second: `{scale, reason, isChanged}`. A second without frames is not judged. */
    second() {
      const n = frames, mean = frames > 0 ? totalMs / frames : 0;
      frames = 0;
      totalMs = 0;
      const same = { scale: at(step), reason, isChanged: false };
      if (n === 0) return same;
      const perSecond = Math.round(10_000 / mean) / 10;
      const drew = `${perSecond} frames a second of ${fps} at scale ${at(step)}`;
      if (mean > budget * SLOW) {
        goodSeconds = 0;
        if (isTryingUp) upAfter = Math.min(upAfter * 2, UP_AFTER_MAX);
        isTryingUp = false;
        if (++slowSeconds < DOWN_AFTER || step === RENDER_SCALES.length - 1) return same;
        return change(step + 1, `the page drew ${drew}`);
      }
      slowSeconds = 0;
      if (mean > budget * KEEPS_UP) {
        goodSeconds = 0;
        return same;
      }
      goodSeconds++;
      // A step up that held for long was right: the next one is tried as soon as the first.
      if (isTryingUp && goodSeconds >= UP_AFTER_MAX) {
        isTryingUp = false;
        upAfter = UP_AFTER;
      }
      if (goodSeconds < upAfter || step === 0) return same;
      isTryingUp = true;
      return change(step - 1, `the page drew ${drew}: one step back up`);
    },
  };
}
