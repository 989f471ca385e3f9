// The player's clock as this page sees it: the last state's reading, mapped onto the page's
// own clock by ping/pong (the sample with the shortest round trip of the last eight). The
// page has no clock of its own for the show: every position comes from here.

let reading = { now: 0, rate: 0 };
let readAt = 0;
/** Player clock minus page clock, ms; null until a pong came back. */
let offset = null;
let samples = [];

/** A new state's clock reading (`{now, rate}`), received now. */
export function setReading(clock) {
  reading = clock;
  readAt = performance.now();
}

/** The page's estimate of the player's clock offset (0 before the first pong). */
export function clockOffset() {
  return offset ?? 0;
}

/** The player's clock at page time `t`: held on a virtual clock (rate 0), else mapped. */
export function playerNow(t = performance.now()) {
  if (reading.rate === 0) return reading.now;
  return offset === null ? reading.now + (t - readAt) : t + offset;
}

/** Whether the player's clock runs in real time (not a virtual clock). */
export function isRealtime() {
  return reading.rate !== 0;
}

/** A pong to a ping sent at page time `t0`, with the player's clock `now` when it answered. */
export function onPong(t0, now) {
  const t1 = performance.now();
  samples = [...samples, { rtt: t1 - t0, offset: now - (t0 + t1) / 2 }].slice(-8);
  offset = samples.reduce((a, b) => (b.rtt < a.rtt ? b : a)).offset;
}

/** Seconds into an item (a layer, the Song) at `clock`: wrapped when it loops, else clamped. */
export function positionOf(item, clock) {
  const p = item.position + item.rate * (clock - item.at) / 1000;
  if (item.loop && item.duration > 0) return ((p % item.duration) + item.duration) % item.duration;
  return Math.min(item.duration ?? Infinity, Math.max(0, p));
}

/**
 * Keeps a media element on the clock: playing forward in real time it plays, nudged (its
 * rate up to 20% off) while more than a frame away and sought when more than half a second;
 * otherwise (backward, paused, a virtual clock) it is sought to each frame's position.
 * Returns how far off it was, ms.
 */
export function follow(el, item, clock, frameSeconds) {
  const want = positionOf(item, clock);
  const drift = el.currentTime - want;
  if (isRealtime() && item.rate > 0) {
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
