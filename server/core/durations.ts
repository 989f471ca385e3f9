/**
 * How long a Clip or a Song is, as the player counts it, from the read model:
 * what a seek in seconds is a fraction of (the 5.0.0 seeks).
 * @module
 */
import type { ReadModel } from "./read_model.ts";

/**
 * Seconds of a Clip's media, or of a Song's audio (its timeline when it has
 * none); `undefined` when there is no such Clip or Song (or no Project),
 * `null` when the Song has nothing to seek.
 */
export function durationOf(
  model: ReadModel,
  target: { kind: "clip" | "song"; id: string; projectId: string | null },
): number | null | undefined {
  const { kind, id } = target;
  const pid = target.projectId ?? model.activeProjectId;
  if (pid === null) return undefined;
  if (kind === "clip") return model.clip(pid, id)?.duration;
  const song = model.song(pid, id);
  if (!song) return undefined;
  const playing = model.playstate(pid)?.song;
  if (playing?.songID === id) return playing.duration;
  // Not the active Song (the player refuses the seek): its length as the player would take it.
  const audio = model.project(pid)?.files.find((f) => f.id === song.audioFileId);
  const cues = song.timeline.map((c) => c.time);
  return audio?.duration ?? (cues.length > 0 ? Math.max(...cues) : null);
}
