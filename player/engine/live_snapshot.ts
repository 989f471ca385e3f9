/**
 * The show state of one Project as the player saves it between runs (in
 * `live.json`, see `live_state.ts`): the active Song and its transport, the
 * selected Clip, every playing or paused Clip voice, and the live Control and
 * parameter values. Positions are the ones at the moment of saving; a restore
 * moves what played on by the time that passed since.
 * @module
 */
import { z } from "zod";
import { CONTROL_IDS } from "../../protocol/action_rules.ts";
import { ClipState, Direction } from "../../protocol/model.ts";
import type { LiveValues } from "../../protocol/state.ts";
import { velocitySchema } from "../../protocol/action_rules.ts";
import type { AdoptedState, ProjectEngine } from "./project_engine.ts";

/** One playing or paused Clip. */
export const VoiceLive = z.object({
  clipId: z.string(),
  state: z.enum(["playing", "paused"]),
  /** Seconds into the media when saved. */
  position: z.number(),
  direction: Direction,
  loop: z.boolean(),
  speed: z.number(),
  velocity: velocitySchema(),
  gain: z.number(),
  held: z.boolean(),
});
/** One playing or paused Clip. */
export type VoiceLive = z.infer<typeof VoiceLive>;

/** The show state of one Project. */
export const ProjectLive = z.object({
  /** The active Song's transport; null when the Project had no Song selected. */
  song: z.object({ songId: z.string(), state: ClipState, position: z.number().min(0) }).nullable(),
  selectedClipId: z.string().nullable(),
  voices: z.array(VoiceLive),
  live: z.object({
    controls: z.record(z.string(), z.number()),
    params: z.record(z.string(), z.record(z.string(), z.number())),
  }),
});
/** The show state of one Project. */
export type ProjectLive = z.infer<typeof ProjectLive>;

/** The show state of `engine` at its clock's current reading. */
export function captureEngine(engine: ProjectEngine): ProjectLive {
  const ps = engine.playState();
  return {
    song: ps.song
      ? { songId: ps.song.songID, state: ps.song.state, position: ps.song.position }
      : null,
    selectedClipId: ps.selectedClipID,
    voices: ps.clips.map((c) => ({
      clipId: c.clipID,
      state: c.state,
      position: c.position,
      direction: c.direction,
      loop: c.loop,
      speed: c.speed,
      velocity: c.velocity,
      gain: c.gain,
      held: c.held,
    })),
    live: engine.live,
  };
}

/**
 * Puts `saved` back on `engine`, which holds the Project as it is now:
 * what no longer exists (a deleted Song or Clip) is skipped, the rest is
 * restored, playing items moved on by `elapsedMs`; then what fell due
 * meanwhile happens (a Clip that would have ended ends, a cue passed fires).
 * Returns what was skipped, one `Song "id"` or `Clip "id" (what)` each.
 */
export function restoreEngine(
  engine: ProjectEngine,
  saved: ProjectLive,
  elapsedMs: number,
): string[] {
  const skipped: string[] = [];
  const clipIds = new Set(engine.project.clips.map((c) => c.id));
  const hasSong = (id: string) => engine.project.songs.some((s) => s.id === id);
  const state: AdoptedState = {
    song: null,
    voices: [],
    live: liveOf(saved.live, clipIds, skipped),
    elapsedMs,
  };
  if (saved.song && !hasSong(saved.song.songId)) skipped.push(`Song "${saved.song.songId}"`);
  else if (saved.song) {
    state.song = saved.song;
    // The selection goes with its Song: kept when its Clip is still there.
    const selected = saved.selectedClipId;
    if (selected === null || clipIds.has(selected)) state.selectedClipId = selected;
    else skipped.push(`Clip "${selected}" (selected)`);
  }
  for (const voice of saved.voices) {
    if (!clipIds.has(voice.clipId)) {
      skipped.push(`Clip "${voice.clipId}" (voice)`);
      continue;
    }
    const { position, ...rest } = voice;
    const duration = engine.clip(voice.clipId).duration;
    state.voices.push({
      ...rest,
      songId: engine.songOfClip(voice.clipId),
      anchorPos: Math.min(duration, Math.max(0, position)),
      duration,
    });
  }
  engine.adopt(state);
  engine.settle();
  return skipped;
}

/** The saved live values of Controls and Clips that still exist. */
function liveOf(saved: LiveValues, clipIds: Set<string>, skipped: string[]): LiveValues {
  const controls: Record<string, number> = {};
  for (const [id, value] of Object.entries(saved.controls)) {
    if (CONTROL_IDS.includes(id)) controls[id] = value;
    else skipped.push(`Control "${id}"`);
  }
  const params: Record<string, Record<string, number>> = {};
  for (const [clipId, values] of Object.entries(saved.params)) {
    if (clipIds.has(clipId)) params[clipId] = { ...values };
    else skipped.push(`Clip "${clipId}" (parameters)`);
  }
  return { controls, params };
}
