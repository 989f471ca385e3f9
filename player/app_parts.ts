/**
 * The parts of the application and how they are wired to each other (`PlayerApp` holds
 * them): the library of open Projects, the app state and the settings it saves, the
 * presets, the pictures, the recording, the editor, the lifecycle edits and the live state.
 * Each part is told of the others through the small host interface it declares; this file
 * is the one place that knows them all.
 * @module
 */
import type { Project } from "../protocol/model.ts";
import { SETTING_DEFAULTS } from "../protocol/settings.ts";
import type { StateUpdate } from "../protocol/state.ts";
import { AppMedia } from "./app_media.ts";
import { PresetShelf } from "./app_presets.ts";
import { AppRecording } from "./app_recording.ts";
import { AppStatus } from "./app_status.ts";
import { Editor } from "./edits/mod.ts";
import { ProjectEngine } from "./engine/project_engine.ts";
import { Lifecycle } from "./library/lifecycle.ts";
import { OpenProjects } from "./library/open_projects.ts";
import { SettingsQueue } from "./library/settings_queue.ts";
import { LiveKeeper } from "./live_keeper.ts";
import type { Output } from "./output/mod.ts";
import type { PlayerOptions } from "./player_options.ts";
import { BUILT_IN_PRESETS } from "./presets.ts";
import { ProjectStore } from "./store.ts";

/** The parts of the application. */
export interface AppParts {
  store: ProjectStore;
  /** The library: open Projects and their engines, the active one, those not open. */
  projects: OpenProjects;
  status: AppStatus;
  settings: SettingsQueue;
  presets: PresetShelf;
  media: AppMedia;
  recording: AppRecording;
  editor: Editor;
  lifecycle: Lifecycle;
  live: LiveKeeper;
}

/** What the parts need of the application that holds them. */
export interface AppPartsHost {
  /** Tells an update to every client (and the recorder, the live state, the output). */
  emit(update: StateUpdate): void;
  /** The output while it runs. */
  output(): Output | null;
}

/** A logger of `options.log` at one level. */
function logAt(options: PlayerOptions, level: "info" | "warn" | "error") {
  return (message: string) => options.log?.(level, message);
}

/** The parts of an application started with `options`, wired to each other and to `host`. */
export function assembleApp(options: PlayerOptions, host: AppPartsHost): AppParts {
  const { dataDir, clock } = options;
  // The parts call each other only once all are made: the closures read `parts` then.
  const parts = {} as AppParts;
  const emit = (update: StateUpdate) => host.emit(update);
  const output = () => host.output();
  const store = new ProjectStore(dataDir);
  const status = new AppStatus({ emit, save: () => parts.settings.save() });
  const recording = new AppRecording({
    dataDir,
    clock,
    status,
    output,
    log: logAt(options, "error"),
  });
  Object.assign(parts, { store, status, recording });
  const projects = parts.projects = createProjects(options, parts, emit);
  parts.settings = new SettingsQueue(
    () =>
      store.saveSettings(status.settings({
        activeProjectId: projects.activeId,
        closedProjectIds: projects.notOpen.closedIds(),
      })),
    logAt(options, "error"),
  );
  parts.presets = new PresetShelf({ store, emit, warn: logAt(options, "warn") });
  parts.media = new AppMedia({ dataDir, clock, ffmpeg: options.ffmpeg ?? null, output });
  parts.live = new LiveKeeper({
    dataDir,
    clock,
    projects,
    recorder: recording.recorder,
    output: () => ({ volume: status.state.volume, muted: status.state.muted }),
    ...(options.wallNow ? { wallNow: options.wallNow } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
  parts.editor = createEditor(options, parts, emit);
  parts.lifecycle = createLifecycle(parts);
  return parts;
}

/** The library; an engine for each Project it opens. */
function createProjects(
  options: PlayerOptions,
  parts: AppParts,
  emit: (update: StateUpdate) => void,
): OpenProjects {
  return new OpenProjects({
    store: parts.store,
    createEngine: (project: Project) =>
      new ProjectEngine(project, {
        clock: options.clock,
        emit,
        onClipStarted: () => parts.recording.clipStarted(),
        positionIntervalMs: options.positionIntervalMs ?? SETTING_DEFAULTS.positionIntervalMs,
        onTimecode: (timecode) =>
          parts.status.change("timecode-changed", { timecode }, { isUnsaved: true }),
      }),
    // Readies a Project opened after start: its pending presets (said), its retry keys.
    beforeOpen: async (id, appliedKeys) => {
      await parts.presets.opened(id);
      parts.editor.addAppliedKeys(id, appliedKeys);
    },
    forget: (id) => parts.editor.forget(id),
    emit,
    saveSettings: () => parts.settings.save(),
    warn: logAt(options, "warn"),
  });
}

/** The editor of the Projects and the user's presets; an open preset editor follows it. */
function createEditor(
  options: PlayerOptions,
  parts: AppParts,
  emit: (update: StateUpdate) => void,
): Editor {
  const { projects, presets } = parts;
  return new Editor({
    store: parts.store,
    builtInPresets: BUILT_IN_PRESETS,
    engine: (projectId) => projects.engine(projectId),
    projects: () => [...projects.engines.values()].map((e) => e.project),
    userPresets: () => presets.user,
    setUserPresets: (user) => {
      presets.user = user;
    },
    emit,
    presetsChanged: (patch) => parts.status.followEditor(patch),
    historyLimit: options.historyLimit ?? SETTING_DEFAULTS.historyLimit,
    textureBudgetBytes: (options.textureBudgetMb ?? SETTING_DEFAULTS.outputTextureBudgetMb) *
      2 ** 20,
    log: logAt(options, "warn"),
    cameras: () => parts.media.cameras.map((c) => c.deviceId),
    lifecycle: ({ spec, params }, projectId) => parts.lifecycle.run(spec.name, params, projectId),
  });
}

/** The lifecycle edits of the library (`project.create`, `project.delete`...). */
function createLifecycle(parts: AppParts): Lifecycle {
  const { projects, editor } = parts;
  return new Lifecycle({
    store: parts.store,
    engine: (id) => projects.engine(id),
    library: () => projects.library(),
    adopt: (id, reason) => projects.adopt(id, reason),
    remove: (id, reason) => projects.remove(id, reason),
    deleteNotOpen: (id) => projects.deleteNotOpen(id),
    importing: (id) => editor.importsInto(id),
    forget: (id) => projects.notOpen.forget(id),
    settingsSaved: () => parts.settings.saved(),
    depth: (id, revision) => editor.depth(id, revision),
  });
}
