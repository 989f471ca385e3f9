/**
 * Playback actions: the Song transport, Clip play, trigger, release, stop.
 * Semantics are specified in docs/domain.md.
 * @module
 */
import type { ProjectEngine } from "../engine/project_engine.ts";
import { Refusal } from "../errors.ts";
import { type ActionContext, type ActionHandler, done, flag, str, unchanged } from "./context.ts";

function clipArg(ctx: ActionContext): string {
  const id = ctx.params.clipID as string | undefined;
  return id ?? ctx.engine.selectedClipId();
}

function clipAtIndex(engine: ProjectEngine, index: number, songId: string | undefined): string {
  const song = songId ? engine.song(songId) : engine.activeSong();
  const id = song.clips[index];
  if (!id) {
    throw new Refusal(
      `No Clip at index ${index} in Song "${song.id}" (it has ${song.clips.length})`,
    );
  }
  return id;
}

/** Selects a Clip when it belongs to the active Song, so navigation follows what plays. */
function follow(engine: ProjectEngine, clipId: string): void {
  const songId = engine.songOfClip(clipId);
  if (songId && songId === engine.activeSongId) engine.selectClip(clipId);
}

function playClip(ctx: ActionContext, clipId: string): ReturnType<ActionHandler> {
  const { engine } = ctx;
  engine.clip(clipId);
  const voice = engine.voice(clipId);
  if (voice?.state === "playing") return unchanged(`Clip "${clipId}" is already playing`);
  follow(engine, clipId);
  if (voice?.state === "paused") {
    engine.resumeClip(clipId, ctx.lateMs);
    return done(`Clip "${clipId}" resumed`);
  }
  engine.startClip(clipId, { velocity: ctx.velocity, lateMs: ctx.lateMs });
  return done(`Clip "${clipId}" playing`);
}

/** Plays the Song (`lateMs` late: where it would be), resuming its paused Clips. */
function playAll(engine: ProjectEngine, lateMs = 0): string {
  const song = engine.songTransport;
  if (!song) throw new Refusal("No Song is selected");
  if (song.state === "playing") return "";
  const wasPaused = song.state === "paused";
  engine.playSong(lateMs);
  if (wasPaused) { for (const v of engine.voices()) engine.resumeClip(v.clipId, lateMs); }
  return `Song "${song.songId}" ${wasPaused ? "resumed" : "playing"}`;
}

function stopAll(engine: ProjectEngine): boolean {
  let changed = false;
  for (const v of engine.voices()) changed = engine.stopClip(v.clipId) || changed;
  const song = engine.songTransport;
  if (song && song.state !== "stopped") {
    engine.stopSong();
    changed = true;
  }
  return changed;
}

function pauseAll(engine: ProjectEngine): number {
  let count = 0;
  if (engine.songTransport?.state === "playing") {
    engine.pauseSong();
    count++;
  }
  for (const v of engine.voices()) if (engine.pauseClip(v.clipId)) count++;
  return count;
}

function resumeAll(engine: ProjectEngine, lateMs = 0): number {
  let count = 0;
  if (engine.songTransport?.state === "paused") {
    engine.playSong(lateMs);
    count++;
  }
  for (const v of engine.voices()) if (engine.resumeClip(v.clipId, lateMs)) count++;
  return count;
}

function maybeBackground(ctx: ActionContext): string {
  if (!flag(ctx, "maybePlayBackground")) return "";
  const { engine } = ctx;
  if (engine.voices().length > 0) return "; other Clips still play, no background";
  const bg = engine.backgroundClipId();
  if (!bg) return "; no background Clip is set";
  engine.startClip(bg, { reason: "background", lateMs: ctx.lateMs });
  return `; background Clip "${bg}" playing`;
}

function stopOne(ctx: ActionContext, clipId: string) {
  ctx.engine.clip(clipId);
  const stopped = ctx.engine.stopClip(clipId);
  const suffix = maybeBackground(ctx);
  return stopped || suffix.includes("playing")
    ? done(`Clip "${clipId}" ${stopped ? "stopped" : "was not playing"}${suffix}`)
    : unchanged(`Clip "${clipId}" was not playing${suffix}`);
}

function release(ctx: ActionContext, clipId: string) {
  const clip = ctx.engine.clip(clipId);
  if (clip.launchMode !== "Gate") {
    return unchanged(`Clip "${clipId}" is in ${clip.launchMode} mode; release does nothing`);
  }
  if (!ctx.engine.voice(clipId)?.held) return unchanged(`Clip "${clipId}" is not held`);
  ctx.engine.stopClip(clipId, "released");
  return done(`Clip "${clipId}" released`);
}

function trigger(ctx: ActionContext) {
  const { engine } = ctx;
  const clipId = str(ctx, "clipID");
  const clip = engine.clip(clipId);
  if (flag(ctx, "activateSong")) engine.selectClip(clipId);
  else follow(engine, clipId);
  const voice = engine.voice(clipId);
  const { velocity, lateMs } = ctx;
  if (!voice) {
    engine.startClip(clipId, { velocity, lateMs, reason: "triggered" });
    return done(`Clip "${clipId}" triggered (${clip.launchMode})`);
  }
  if (clip.launchMode === "Toggle") {
    engine.stopClip(clipId, "toggled");
    return done(`Clip "${clipId}" toggled off`);
  }
  switch (clip.retrigger) {
    case "restart":
      engine.startClip(clipId, { velocity, lateMs, reason: "retriggered" });
      return done(`Clip "${clipId}" restarted`);
    case "stop":
      engine.stopClip(clipId, "retriggered");
      return done(`Clip "${clipId}" stopped by retrigger`);
    case "ignore":
      if (voice.state === "paused") {
        engine.resumeClip(clipId, lateMs);
        return done(`Clip "${clipId}" resumed`);
      }
      return unchanged(`Clip "${clipId}" is playing; its retrigger behavior is ignore`);
  }
}

/** Playback handlers by action name. */
export const playbackActions: Record<string, ActionHandler> = {
  PLAY_IN: ({ engine, lateMs }) => {
    const message = playAll(engine, lateMs);
    return message ? done(message) : unchanged("The Song is already playing");
  },
  STOP_IN: ({ engine }) =>
    stopAll(engine) ? done("Playback stopped") : unchanged("Nothing was playing"),
  PAUSE_IN: (ctx) => {
    const clipId = ctx.params.clipID as string | undefined;
    if (clipId === undefined) {
      const count = pauseAll(ctx.engine);
      if (count === 0) throw new Refusal("Nothing is playing");
      return done(`Paused ${count} item(s)`);
    }
    ctx.engine.clip(clipId);
    const state = ctx.engine.voice(clipId)?.state;
    if (state === "paused") return unchanged(`Clip "${clipId}" is already paused`);
    if (state !== "playing") throw new Refusal(`Clip "${clipId}" is not playing`);
    ctx.engine.pauseClip(clipId);
    return done(`Clip "${clipId}" paused`);
  },
  RESUME_IN: (ctx) => {
    const clipId = ctx.params.clipID as string | undefined;
    if (clipId === undefined) {
      const count = resumeAll(ctx.engine, ctx.lateMs);
      if (count === 0) throw new Refusal("Nothing is paused");
      return done(`Resumed ${count} item(s)`);
    }
    ctx.engine.clip(clipId);
    const state = ctx.engine.voice(clipId)?.state;
    if (state === "playing") return unchanged(`Clip "${clipId}" is already playing`);
    if (state !== "paused") throw new Refusal(`Clip "${clipId}" is not paused`);
    ctx.engine.resumeClip(clipId, ctx.lateMs);
    return done(`Clip "${clipId}" resumed`);
  },
  PLAY_TOGGLE_IN: ({ engine, lateMs }) => {
    if (engine.isPlaying()) {
      stopAll(engine);
      return done("Playback stopped");
    }
    return done(playAll(engine, lateMs));
  },
  PAUSE_TOGGLE_IN: ({ engine, lateMs }) => {
    if (engine.isPlaying()) return done(`Paused ${pauseAll(engine)} item(s)`);
    if (engine.isPaused()) return done(`Resumed ${resumeAll(engine, lateMs)} item(s)`);
    throw new Refusal("Nothing is playing or paused");
  },
  PLAY_CLIP_IN: (ctx) => playClip(ctx, clipArg(ctx)),
  PLAY_CLIP_BY_INDEX_IN: (ctx) =>
    playClip(
      ctx,
      clipAtIndex(ctx.engine, ctx.params.index as number, ctx.params.songID as string | undefined),
    ),
  TRIGGER_CLIP_IN: trigger,
  RESTART_CLIP_IN: (ctx) => {
    const clipId = clipArg(ctx);
    ctx.engine.clip(clipId);
    follow(ctx.engine, clipId);
    ctx.engine.startClip(clipId, {
      velocity: ctx.velocity,
      lateMs: ctx.lateMs,
      reason: "restarted",
    });
    return done(`Clip "${clipId}" restarted`);
  },
  RELEASE_CLIP_IN: (ctx) => release(ctx, str(ctx, "clipID")),
  RELEASE_CLIP_BY_INDEX_IN: (ctx) =>
    release(
      ctx,
      clipAtIndex(ctx.engine, ctx.params.index as number, ctx.params.songID as string | undefined),
    ),
  STOP_CLIP_IN: (ctx) => stopOne(ctx, str(ctx, "clipID")),
  STOP_ALL_CLIPS_IN: (ctx) => {
    let count = 0;
    const suffix = ctx.engine.cross("stop-all", () => {
      for (const v of ctx.engine.voices()) if (ctx.engine.stopClip(v.clipId)) count++;
      return maybeBackground(ctx);
    });
    return count > 0 || suffix.includes("playing")
      ? done(`Stopped ${count} Clip(s)${suffix}`)
      : unchanged(`No Clip was playing${suffix}`);
  },
};

export { playAll, stopAll };
