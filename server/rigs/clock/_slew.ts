/**
 * The show clock's offset over local time while a correction is slewed: from `from` at local
 * time `start` toward `to` at `rate` ms per ms, then `to`. Show time (local + offset) then runs at
 * 1 +- rate, never backward while rate < 1.
 * @module
 */

/** A correction in progress (or done). */
export interface Slew {
  readonly from: number;
  readonly to: number;
  readonly start: number;
  readonly rate: number;
}

/** The offset at local time `t`. */
export function offsetAt(s: Slew, t: number): number {
  if (t <= s.start) return s.from;
  const moved = s.rate * (t - s.start);
  return s.to >= s.from ? Math.min(s.to, s.from + moved) : Math.max(s.to, s.from - moved);
}

/** The local time at which show time (local + offset) reads `show`. */
export function localAt(s: Slew, show: number): number {
  if (show <= s.start + s.from) return show - s.from;
  const end = s.start + Math.abs(s.to - s.from) / s.rate;
  if (show >= end + s.to) return show - s.to;
  const sign = s.to >= s.from ? 1 : -1;
  return (show - s.from + sign * s.rate * s.start) / (1 + sign * s.rate);
}
