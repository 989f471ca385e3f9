// @ts-check
// The player's clock as this page sees it: the last state's reading, mapped onto the page's
// own clock by ping/pong (the sample with the shortest round trip of the last eight, whose
// offset is right within half its round trip: the estimate's error, which the page reports
// beside its frames' lag). The page has no clock of its own for the show: every position comes
// from here.

import { estimateOf, FrameTime, keptSamples } from "./frame_time.js";

/** @typedef {import("../../../protocol/output.ts").RenderState["clock"]} OutputClock */
/**
 * What has a position on the clock: a layer, the Song (`duration` absent: unbounded).
 * @typedef {{position: number, at: number, rate: number, loop: boolean, duration?: number}} Timed
 */

/** The player's clock as the page maps it (one per page, owned by its entry). */
export class PlayerClock {
  /** @type {OutputClock} */
  #reading = { now: 0, rate: 0 };
  #readAt = 0;
  /** Player clock minus page clock, ms; null until a pong came back. @type {number | null} */
  #offset = null;
  /** The error of `#offset`, ms: half its sample's round trip (Infinity before one). */
  #halfRtt = Infinity;
  /** @type {{rtt: number, offset: number}[]} */
  #samples = [];
  #frameTime = new FrameTime();

  /**
   * A new state's clock reading, received now.
   * @param {OutputClock} clock
   */
  setReading(clock) {
    this.#reading = clock;
    this.#readAt = performance.now();
  }

  /** The page's estimate of the player's clock offset (0 before the first pong). */
  get offset() {
    return this.#offset ?? 0;
  }

  /** The player's clock at page time `t`: held on a virtual clock (rate 0), else mapped. */
  now(t = performance.now()) {
    if (this.#reading.rate === 0) return this.#reading.now;
    return this.#offset === null ? this.#reading.now + (t - this.#readAt) : t + this.#offset;
  }

  /** Whether the player's clock runs in real time (not a virtual clock). */
  get isRealtime() {
    return this.#reading.rate !== 0;
  }

  /**
   * How far the estimate of the player's clock may be off, ms: half the round trip of the ping
   * it comes from (the player read its clock somewhere within that round trip); 0 on a virtual
   * clock (drawn as read), Infinity on a real-time one before the first pong (a state's reading
   * is then mapped by its arrival, its transit unknown).
   */
  get errorMs() {
    return this.isRealtime ? this.#halfRtt : 0;
  }

  /**
   * A pong to a ping sent at page time `t0`, with the player's clock `now` when it answered.
   * @param {number} t0
   * @param {number} now
   */
  onPong(t0, now) {
    const t1 = performance.now();
    this.#samples = keptSamples(this.#samples, { rtt: t1 - t0, offset: now - (t0 + t1) / 2 });
    const { offset, errorMs } = estimateOf(this.#samples);
    this.#offset = offset;
    this.#halfRtt = errorMs;
  }

  /**
   * The time the frame at page time `t` draws at (`frameLagMs` then says how far it lags the
   * player's clock): `FrameTime`'s rule on a real-time clock; a virtual clock (rate 0) is drawn
   * as read.
   * @param {number} t
   * @param {number} frameMs
   */
  frameTime(t, frameMs) {
    if (this.isRealtime) return this.#frameTime.next(t, this.now(t), frameMs);
    this.#frameTime.reset();
    return this.now(t);
  }

  /** How far the last frame's time lagged the player's clock, ms (0 on a virtual clock). */
  get frameLagMs() {
    return this.#frameTime.lagMs;
  }

  /**
   * Keeps a media element on the clock: playing forward in real time it plays, nudged (its
   * rate up to 20% off) while more than a frame away and sought when more than half a second;
   * otherwise (backward, paused, a virtual clock) it is sought to each frame's position.
   * Returns how far off it was, ms.
   * @param {HTMLMediaElement} el
   * @param {Timed} item
   * @param {number} clock
   * @param {number} frameSeconds
   */
  follow(el, item, clock, frameSeconds) {
    const want = positionOf(item, clock);
    const drift = el.currentTime - want;
    if (this.isRealtime && item.rate > 0) {
      if (el.paused) el.play().catch(() => {});
      if (Math.abs(drift) > 0.5) el.currentTime = want;
      else if (Math.abs(drift) > frameSeconds) {
        el.playbackRate = item.rate * (1 - Math.max(-0.2, Math.min(0.2, drift)));
      } else el.playbackRate = item.rate;
    } else {
      if (!el.paused) el.pause();
      if (Math.abs(drift) > frameSeconds / 2 && !el.seeking) el.currentTime = want;
    }
    return Math.abs(drift) * 1000;
  }
}

/**
 * Seconds into an item (a layer, the Song) at `clock`: wrapped when it loops, else clamped.
 * @param {Timed} item
 * @param {number} clock
 */
export function positionOf(item, clock) {
  const p = item.position + item.rate * (clock - item.at) / 1000;
  if (item.loop && item.duration && item.duration > 0) {
    return ((p % item.duration) + item.duration) % item.duration;
  }
  return Math.min(item.duration ?? Infinity, Math.max(0, p));
}
