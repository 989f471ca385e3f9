/**
 * Position arithmetic shared by the player (which keeps time) and the
 * server (which extrapolates its read model between updates), so both
 * compute the same position for the same clock reading.
 * @module
 */
import type { Direction } from "./model.ts";
import type { PlayState } from "./state.ts";

/**
 * Where media is `seconds` after it was at `position`, moving at `speed` in
 * `direction`: wrapped when looping, clamped to 0..duration otherwise.
 */
export function advancePosition(
  position: number,
  seconds: number,
  motion: { speed: number; direction: Direction; duration: number; loop: boolean },
): number {
  const raw = position + seconds * motion.speed * (motion.direction === "forward" ? 1 : -1);
  if (motion.loop) return ((raw % motion.duration) + motion.duration) % motion.duration;
  return Math.min(motion.duration, Math.max(0, raw));
}

/** A play state as it is at player clock time `now` (ms), from one taken at `state.at`. */
export function playStateAt(state: PlayState, now: number): PlayState {
  const seconds = (now - state.at) / 1000;
  if (seconds <= 0) return state;
  const song = state.song?.state === "playing"
    ? {
      ...state.song,
      position: Math.min(state.song.duration ?? Infinity, state.song.position + seconds),
    }
    : state.song;
  const clips = state.clips.map((c) =>
    c.state === "playing" ? { ...c, position: advancePosition(c.position, seconds, c) } : c
  );
  return { ...state, at: now, song, clips };
}
