/**
 * System actions: output level, mute, full screen, recording, the active Project, panic,
 * editor.
 * @module
 */
import type { RECORD_MODES } from "../../protocol/action_rules.ts";
import { Refusal } from "../errors.ts";
import { type ActionHandler, done, str, unchanged } from "./context.ts";

/** System handlers by action name. */
export const systemActions: Record<string, ActionHandler> = {
  OUTPUT_LEVEL_IN: ({ app, params }) => {
    const level = params.level as number;
    if (app.appState.volume === level) return unchanged(`Output level is already ${level}`);
    app.changeAppState("volume-changed", { volume: level }, { isVolume: true });
    return done(`Output level ${level}`);
  },
  MUTE_TOGGLE: ({ app }) => {
    const muted = !app.appState.muted;
    app.changeAppState("mute-changed", { muted }, { isVolume: true });
    return done(muted ? "Muted" : "Unmuted");
  },
  FULLSCREEN_TOGGLE: ({ app }) => {
    const fullScreen = !app.appState.fullScreen;
    app.changeAppState("fullscreen-changed", { fullScreen });
    return done(fullScreen ? "Full screen on" : "Full screen off");
  },
  RECORD_TOGGLE: ({ app, params }) => {
    const mode = params.mode as (typeof RECORD_MODES)[number];
    const message = app.toggleRecording(mode);
    // Stopping a video recording answers once its last chunk is written.
    return typeof message === "string" ? done(message) : message.then(done);
  },
  PROJECT_SELECT: (ctx) => ctx.app.selectProject(str(ctx, "projectID")),
  PANIC: ({ app }) => {
    app.changeAppState("windows-reloaded", {
      windowReloads: app.appState.windowReloads + 1,
      lastReloadAt: new Date().toISOString(),
    });
    return done("Every window reloaded");
  },
  OPEN_EDITOR: (ctx) => {
    const kind = str(ctx, "kind") as "effect" | "visualizer";
    const presetId = str(ctx, "presetID");
    const preset = ctx.app.presets().find((p) => p.id === presetId);
    if (!preset) throw new Refusal(`Preset "${presetId}" does not exist`);
    if (preset.kind !== kind) {
      throw new Refusal(
        `Preset "${presetId}" is ${
          preset.kind === "effect" ? "an" : "a"
        } ${preset.kind} preset, not ${kind}`,
      );
    }
    // The window shows it once its page loads (`shown`); an editor open on another preset
    // shows this one in the same window.
    const shown = ctx.app.appState.editor?.shown ?? false;
    ctx.app.changeAppState("editor-opened", {
      editor: {
        kind,
        presetId,
        openedAt: new Date().toISOString(),
        preset,
        updatedAt: null,
        shown,
      },
    });
    return done(`${kind === "effect" ? "Effect" : "Visualizer"} editor open on "${presetId}"`);
  },
};
