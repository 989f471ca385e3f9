/**
 * Seek, direction and real-time control actions.
 * @module
 */
import { CONTROL_IDS } from "../../protocol/action_rules.ts";
import { isClipParameter, PARAMETER_HINT, parseTarget, shapeValue } from "../engine/controls.ts";
import { Refusal } from "../errors.ts";
import { type ActionHandler, done, num, str, unchanged } from "./context.ts";

/** Seek, direction and control handlers by action name. */
export const seekControlActions: Record<string, ActionHandler> = {
  SEEK_CLIP_IN: (ctx) => {
    const clipId = str(ctx, "clipID");
    const clip = ctx.engine.clip(clipId);
    const seconds = num(ctx, "percent") * clip.duration;
    ctx.engine.seekClip(clipId, seconds);
    return done(`Clip "${clipId}" at ${seconds.toFixed(3)} s`);
  },
  SEEK_SONG_IN: (ctx) => {
    const songId = str(ctx, "songID");
    ctx.engine.song(songId);
    const transport = ctx.engine.songTransport;
    if (transport?.songId !== songId) throw new Refusal(`Song "${songId}" is not the active Song`);
    if (transport.duration === null) throw new Refusal(`Song "${songId}" has no audio to seek`);
    const seconds = num(ctx, "percent") * transport.duration;
    ctx.engine.seekSong(seconds);
    return done(`Song "${songId}" at ${seconds.toFixed(3)} s`);
  },
  CLIP_DIRECTION: async (ctx) => {
    const clipId = str(ctx, "clipID");
    const direction = str(ctx, "direction") as "forward" | "backward";
    ctx.engine.clip(clipId);
    // Made in its turn: an edit of the Clip committed meanwhile is kept, and the same
    // direction set meanwhile is not written twice.
    const isChanged = await ctx.app.commitProject(ctx.engine, (project) => {
      const clip = project.clips.find((c) => c.id === clipId);
      if (!clip) throw new Refusal(`Clip "${clipId}" was removed meanwhile`);
      if (clip.direction === direction) return null;
      const changed = { ...clip, direction };
      return {
        project: { ...project, clips: project.clips.map((c) => (c.id === clipId ? changed : c)) },
        updates: [{
          updateType: "clip",
          projectId: project.id,
          data: { event: "clip-changed", clipID: clipId, clip: changed },
        }],
      };
    });
    if (!isChanged) return unchanged(`Clip "${clipId}" already plays ${direction}`);
    ctx.engine.redirectVoice(clipId, direction);
    return done(`Clip "${clipId}" plays ${direction}`);
  },
  SET_CONTROL: (ctx) => {
    const id = str(ctx, "controlID");
    if (!CONTROL_IDS.includes(id)) throw new Refusal(`Control "${id}" does not exist`);
    const value = num(ctx, "value");
    const control = ctx.engine.project.controls.find((c) => c.id === id);
    ctx.engine.setControlValue(id, value);
    let written = 0, skipped = 0;
    for (const target of control?.targets ?? []) {
      const parsed = parseTarget(target.target);
      if (!parsed || !ctx.engine.project.clips.some((c) => c.id === parsed.clipId)) {
        skipped++;
        continue;
      }
      ctx.engine.setParam(
        parsed.clipId,
        parsed.parameter,
        shapeValue(value, target, control!.clamp),
      );
      written++;
    }
    const note = skipped ? `, ${skipped} skipped (missing Clip)` : "";
    return done(`Control ${id} = ${value}: ${written} Target(s) written${note}`);
  },
  SET_PARAM: (ctx) => {
    const targetId = str(ctx, "targetID");
    const parsed = parseTarget(targetId);
    if (!parsed) {
      throw new Refusal(`Target "${targetId}" is not of the form clip:<clipId>/<parameter>`);
    }
    const clip = ctx.engine.clip(parsed.clipId);
    if (!isClipParameter(ctx.engine.project, clip, parsed.parameter, ctx.app.presets())) {
      throw new Refusal(
        `Clip parameter "${parsed.parameter}" does not exist: use one of ${PARAMETER_HINT}`,
      );
    }
    const value = num(ctx, "value");
    ctx.engine.setParam(parsed.clipId, parsed.parameter, value);
    return done(`${targetId} = ${value}`);
  },
};
