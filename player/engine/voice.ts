/**
 * A Voice is one Clip that is playing or paused. Its position is not ticked:
 * it is computed from an anchor (position at a time) and a rate, so it is
 * exact at any clock reading and costs nothing while nothing asks.
 * @module
 */
import type { Direction } from "../../protocol/model.ts";
import { advancePosition } from "../../protocol/positions.ts";
import { VELOCITY } from "../../protocol/action_rules.ts";

/** A playing or paused Clip. */
export interface Voice {
  clipId: string;
  songId: string | null;
  state: "playing" | "paused";
  /** Position in seconds at `anchorTime`. */
  anchorPos: number;
  /** Clock milliseconds at which `anchorPos` held. */
  anchorTime: number;
  duration: number;
  direction: Direction;
  /** Effective loop: the Clip's loop setting, never for OneShot. */
  loop: boolean;
  /** Playback speed factor (the Clip's speed or a live override). */
  speed: number;
  velocity: number;
  gain: number;
  held: boolean;
}

/** Seconds per second the position moves: negative when playing backward. */
export function rateOf(v: Voice): number {
  return v.speed * (v.direction === "forward" ? 1 : -1);
}

/** The position in seconds at clock time `now`: wrapped when looping, clamped otherwise. */
export function positionAt(v: Voice, now: number): number {
  if (v.state === "paused") return v.anchorPos;
  return advancePosition(v.anchorPos, (now - v.anchorTime) / 1000, v);
}

/** Clock time at which a non-looping playing voice reaches its end, or null if never. */
export function endTimeOf(v: Voice): number | null {
  const rate = rateOf(v);
  if (v.state !== "playing" || v.loop || rate === 0) return null;
  const remaining = rate > 0 ? v.duration - v.anchorPos : v.anchorPos;
  return v.anchorTime + (Math.max(0, remaining) / Math.abs(rate)) * 1000;
}

/** Re-anchors at `now` so a change of rate or state starts from the exact position. */
export function reanchor(v: Voice, now: number): void {
  v.anchorPos = positionAt(v, now);
  v.anchorTime = now;
}

/** The start position for a direction: 0 forward, the end backward. */
export function startPosition(direction: Direction, duration: number): number {
  return direction === "forward" ? 0 : duration;
}

/** Level factor for a trigger velocity (`VELOCITY`'s range) under a sensitivity (0-1). */
export function velocityGain(velocity: number, sensitivity: number): number {
  return 1 - sensitivity * (1 - velocity / VELOCITY.max);
}
