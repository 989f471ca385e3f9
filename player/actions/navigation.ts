/**
 * Navigation actions: moving through Clips and Songs. A Clip step works like
 * a cue list's GO: the selected Clip stops if it was playing, and the new one
 * plays. Selecting a Song stops playback unless asked not to.
 * @module
 */
import type { Song } from "../../protocol/model.ts";
import type { ProjectEngine } from "../engine/project_engine.ts";
import { Refusal } from "../errors.ts";
import { type ActionContext, type ActionHandler, done, flag, str } from "./context.ts";
import { playAll, stopAll } from "./playback.ts";

function step(ctx: ActionContext, delta: 1 | -1) {
  const { engine } = ctx;
  const song = engine.activeSong();
  const selected = engine.selection;
  const index = selected ? song.clips.indexOf(selected) : -1;
  let target = song.clips[index + delta < 0 && index === -1 ? 0 : index + delta];
  if (!target && flag(ctx, "anySong")) target = clipInNeighbourSong(engine, delta);
  if (!target) {
    throw new Refusal(
      delta > 0
        ? `Already at the last Clip of Song "${song.id}"`
        : `Already at the first Clip of Song "${song.id}"`,
    );
  }
  engine.cross("clip", () => {
    if (selected && engine.voice(selected)?.state === "playing") {
      engine.stopClip(selected, "navigated");
    }
    engine.selectClip(target);
    engine.startClip(target, { reason: "navigated" });
  });
  return done(`Clip "${target}" selected and playing`);
}

function clipInNeighbourSong(engine: ProjectEngine, delta: 1 | -1): string | undefined {
  const songs = engine.project.songs;
  for (let i = engine.activeSongIndex() + delta; i >= 0 && i < songs.length; i += delta) {
    const clips = songs[i]!.clips;
    if (clips.length > 0) return delta > 0 ? clips[0] : clips[clips.length - 1];
  }
  return undefined;
}

/** Selects `song`; `then` (playing it) runs inside the crossing, so what it starts is incoming. */
function select(ctx: ActionContext, song: Song, keepPlaying: boolean, then?: () => void) {
  ctx.engine.cross("song", () => {
    if (!keepPlaying) stopAll(ctx.engine);
    ctx.engine.selectSong(song.id, { keepPlaying });
    then?.();
  });
  return done(`Song "${song.id}" selected`);
}

function neighbour(engine: ProjectEngine, delta: 1 | -1): Song {
  const songs = engine.project.songs;
  const next = songs[engine.activeSongIndex() + delta];
  if (!next) {
    throw new Refusal(delta > 0 ? "Already at the last Song" : "Already at the first Song");
  }
  return next;
}

function songAt(engine: ProjectEngine, index: number): Song {
  const songs = engine.project.songs;
  const song = songs[index];
  if (!song) throw new Refusal(`No Song at index ${index} (the Project has ${songs.length})`);
  return song;
}

/** Navigation handlers by action name. */
export const navigationActions: Record<string, ActionHandler> = {
  NEXT_CLIP_IN: (ctx) => step(ctx, 1),
  PREV_CLIP_IN: (ctx) => step(ctx, -1),
  NEXT_SONG_IN: (ctx) => select(ctx, neighbour(ctx.engine, 1), flag(ctx, "noStop")),
  PREV_SONG_IN: (ctx) => select(ctx, neighbour(ctx.engine, -1), flag(ctx, "noStop")),
  PLAY_NEXT_SONG_IN: (ctx) => {
    const song = neighbour(ctx.engine, 1);
    select(ctx, song, false, () => {
      playAll(ctx.engine, ctx.lateMs);
      ctx.engine.settle(); // its cues at 0 s start their Clips in the crossing
    });
    return done(`Song "${song.id}" selected and playing`);
  },
  SONG_SELECT_IN: (ctx) =>
    select(ctx, songAt(ctx.engine, ctx.params.index as number), !flag(ctx, "stopPlaying")),
  SONG_SELECT_BY_ID: (ctx) =>
    select(ctx, ctx.engine.song(str(ctx, "songID")), !flag(ctx, "stopPlaying")),
  SONG_SELECT_PGM_ID: (ctx) => {
    const pgmId = str(ctx, "pgmId");
    const song = ctx.engine.project.songs.find((s) => s.pgmId === pgmId);
    if (!song) throw new Refusal(`No Song has Program Identifier "${pgmId}"`);
    return select(ctx, song, !flag(ctx, "stopPlaying"));
  },
  SONG_SELECT_PERCENT_IN: (ctx) => {
    const count = ctx.engine.project.songs.length;
    if (count === 0) throw new Refusal("The Project has no Songs");
    const index = Math.min(count - 1, Math.floor((ctx.params.percent as number) * count));
    return select(ctx, songAt(ctx.engine, index), !flag(ctx, "stopPlaying"));
  },
};
