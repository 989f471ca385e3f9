/**
 * The player application: projects loaded from disk, one engine per
 * project, app state, presets, cameras, recording and entitlements. It runs
 * catalog actions and reports every change as state updates.
 * @module
 */
import type { NormalizedAction } from "../protocol/actions.ts";
import { RpcErrorCode } from "../protocol/jsonrpc.ts";
import type {
  ActionOutcome,
  CameraFrameResult,
  MediaLocateResult,
  OutputFrameResult,
} from "../protocol/methods.ts";
import { type Preset, type Project } from "../protocol/model.ts";
import type { AppState, Camera, Snapshot, StateUpdate } from "../protocol/state.ts";
import type { DataProblem, LibraryEntry } from "../protocol/library.ts";
import { type AppServices, runAction } from "./actions/mod.ts";
import { CameraFrames } from "./camera_frames.ts";
import { listCameras } from "./cameras.ts";
import { type Clock, VirtualClock } from "./clock.ts";
import { ProjectEngine } from "./engine/project_engine.ts";
import { quoted, Refusal } from "./errors.ts";
import { BUILT_IN_PRESETS } from "./presets.ts";
import { Recorder } from "./recorder.ts";
import { type PlayerSettings, ProjectStore } from "./store.ts";
import { ensureControls } from "./project_defaults.ts";
import { type EditOptions, Editor } from "./edits/mod.ts";
import type { Beside } from "./beside.ts";
import type { EditApplyParams, EditApplyResult } from "../protocol/edits/mod.ts";
import type { ProjectPatch } from "../protocol/patch.ts";
import { removeStaleTemps, writeFileAtomic } from "../protocol/atomic_write.ts";
import { LiveSaver } from "./live_saver.ts";
import {
  captureLiveState,
  LIVE_STATE_FILE,
  type LiveState,
  restoreLiveState,
} from "./live_state.ts";
import { type ProjectLive, restoreEngine } from "./engine/live_snapshot.ts";
import { KEEP_LIVE_GENERATIONS } from "../protocol/kept_copies.ts";
import { checkHistory } from "./edits/history.ts";
import { damagedEntry, damagedRefusal, damageLine } from "./damage.ts";
import { ActionKeys } from "./action_keys.ts";
import type { OutputMode } from "../protocol/output.ts";
import { type PlayerSettingValues, SETTING_DEFAULTS } from "../protocol/settings.ts";
import { type Output, startOutput } from "./output/mod.ts";
import { recoverImportFolders } from "./show/import.ts";
import { mergePendingPresets } from "./show/pending_presets.ts";
import { Lifecycle } from "./library/lifecycle.ts";
import { cleanLibraryFolders } from "./library/folders.ts";
import { notOpenHint } from "../protocol/edits/project.ts";

/** Player name and version reported in the handshake and snapshot. */
export const PLAYER_INFO = { name: "cueport-player", version: "0.1.0" } as const;

/** How the player is started. */
export interface PlayerOptions {
  dataDir: string;
  clock: Clock;
  /** `pro` includes API access; `free` does not (the API answers 403). Default: the `plan` setting's. */
  plan?: PlayerSettingValues["plan"];
  /** Interval of position reports while playing, ms; 0 disables. Default: the setting's. */
  positionIntervalMs?: number;
  /** Undo steps kept per Project. Default: the `historyLimit` setting's. */
  historyLimit?: number;
  /** The output's texture budget for all Effects and Visualizers, MB (`outputTextureBudgetMb`). */
  textureBudgetMb?: number;
  /** Where problems go (stderr in the bundled player). */
  log?: (level: "info" | "warn" | "error", message: string) => void;
  /**
   * Wall time (ms since the epoch) for the live state: a restarted player
   * moves what played on by the wall time that passed since the last save.
   * Default `Date.now`; on a `VirtualClock` no time passes unless one is given.
   */
  wallNow?: () => number;
  /** The ffmpeg command that captures camera devices; null or absent: none. */
  ffmpeg?: string | null;
  /** How the show is shown (`docs/output.md`); absent: `none`. */
  output?: {
    mode: OutputMode;
    browser: string | null;
    /** The time a frame may take before the page draws smaller (tests); absent: the frame period. */
    frameBudgetMs?: number;
  };
}

/**
 * Least time between two writes of the live state, ms: a change is on disk
 * within this gap plus one write. A write (temp + rename, no fsync, about 2
 * KB) costs the player 250-480 us of CPU on the 2-core VM (2,000 writes in a
 * loop), so a fader stream costs at most 10 writes a second, under 0.5% of a
 * core.
 */
const LIVE_SAVE_GAP_MS = 100;

/** What makes a Project that is not open selectable (`PlayerApp.selectProject`'s refusal). */
const NOT_OPEN_REMEDY: Record<LibraryEntry["state"], string> = {
  open: "",
  closed: "open it first with the edit project.open",
  damaged: "its file cannot be read; repair or replace it (docs/projects.md)",
  deleted: "restore it first with the edit project.restore",
};

/** The application. */
export class PlayerApp implements AppServices {
  readonly store: ProjectStore;
  readonly clock: Clock;
  /** Receives every update; set by whoever publishes them. */
  onUpdate: (update: StateUpdate) => void = () => {};
  #options: PlayerOptions;
  #engines = new Map<string, ProjectEngine>();
  #activeProjectId: string | null = null;
  #appState!: AppState;
  #userPresets: Preset[] = [];
  #cameras: Camera[] = [];
  #recorder: Recorder;
  #settingsWrite: Promise<void> = Promise.resolve();
  #settingsDirty = false;
  #editor: Editor;
  #liveSaver: LiveSaver;
  /** Retry keys of the actions applied, saved with the live state. */
  #actionKeys = new ActionKeys();
  #cameraFrames: CameraFrames;
  #output: Output | null = null;
  /** The files of the data dir found damaged at start (`protocol/library.ts`). */
  #problems: DataProblem[] = [];
  /** The library's Projects that are not open (closed, damaged, deleted). */
  #notOpen: LibraryEntry[] = [];
  /**
   * The Projects' entries of the last live state read or written: those of Projects not
   * open are written again from here (never dropped), and restored when one is opened.
   */
  #lastLive: Record<string, ProjectLive> = {};
  /** The active Project the settings named, when it was found damaged (its refusals name it). */
  #wantedActive: string | null = null;
  #lifecycle: Lifecycle;

  private constructor(options: PlayerOptions) {
    this.#options = options;
    this.clock = options.clock;
    this.store = new ProjectStore(options.dataDir);
    this.#cameraFrames = new CameraFrames(
      options.dataDir,
      () => this.clock.now(),
      options.ffmpeg ?? null,
    );
    this.#recorder = new Recorder(options.dataDir, () => this.clock.now(), {
      video: () => this.#output,
      log: (message) => options.log?.("error", message),
      changed: () => this.changeAppState("recording-changed", { recording: this.#recorder.state }),
    });
    this.#liveSaver = new LiveSaver({
      path: `${options.dataDir}/${LIVE_STATE_FILE}`,
      build: () => this.#captureLive(),
      gapMs: LIVE_SAVE_GAP_MS,
      keep: KEEP_LIVE_GENERATIONS,
      log: (message) => options.log?.("error", message),
    });
    this.#editor = new Editor({
      store: this.store,
      builtInPresets: BUILT_IN_PRESETS,
      engine: (projectId) => this.#engineOf(projectId),
      projects: () => [...this.#engines.values()].map((e) => e.project),
      userPresets: () => this.#userPresets,
      setUserPresets: (presets) => {
        this.#userPresets = presets;
      },
      emit: (update) => this.#emit(update),
      presetsChanged: (patch) => this.#followEditor(patch),
      historyLimit: options.historyLimit ?? SETTING_DEFAULTS.historyLimit,
      textureBudgetBytes: (options.textureBudgetMb ?? SETTING_DEFAULTS.outputTextureBudgetMb) *
        2 ** 20,
      log: (message) => this.#options.log?.("warn", message),
      lifecycle: ({ spec, params }, projectId) => this.#lifecycle.run(spec.name, params, projectId),
    });
    this.#lifecycle = new Lifecycle({
      store: this.store,
      engine: (id) => this.#engineOf(id),
      library: () => this.library(),
      adopt: (id, reason) => this.adoptProject(id, reason),
      remove: (id, reason) => this.removeProject(id, reason),
      forget: (id) => {
        this.#notOpen = this.#notOpen.filter((e) => e.projectId !== id);
      },
      settingsSaved: () => this.#settingsWrite,
      depth: (id, revision) => this.#editor.depth(id, revision),
    });
  }

  /**
   * Loads everything from the data dir (creating the demo project on first
   * start), removes the partial copies of imports and the temp files of
   * writes a previous run did not finish, and resumes the show that run left
   * (`live_state.ts`), so the first snapshot already shows it.
   */
  static async open(options: PlayerOptions): Promise<PlayerApp> {
    const app = new PlayerApp(options);
    const folders = await cleanLibraryFolders(options.dataDir);
    if (folders > 0) {
      options.log?.(
        "info",
        `Removed ${folders} folder(s): the trash, and Projects never put in place`,
      );
    }
    const removed = await app.store.removePartialImports();
    if (removed > 0) {
      options.log?.("info", `Removed ${removed} partial import(s) an interrupted copy left`);
    }
    // live.json, player.json and presets.json are written here; projects clean their own folder.
    const temps = await removeStaleTemps(options.dataDir);
    if (temps > 0) options.log?.("info", `Removed ${temps} temp file(s) interrupted writes left`);
    const staged = await recoverImportFolders(options.dataDir);
    if (staged > 0) options.log?.("info", `Undid ${staged} show import(s) a stop interrupted`);
    await app.#load();
    await app.#restoreLive();
    app.#startOutput();
    return app;
  }

  /** The output window (`output/`), or null when the show is not shown. */
  get output(): Output | null {
    return this.#output;
  }

  /** Resolves when the last recording stopped is whole on disk. */
  recordingFinished(): Promise<void> {
    return this.#recorder.finished();
  }

  get appState(): AppState {
    return this.#appState;
  }

  presets(): readonly Preset[] {
    return [...BUILT_IN_PRESETS, ...this.#userPresets];
  }

  /** Everything, at the current clock reading. */
  snapshot(): Snapshot {
    const engines = [...this.#engines.values()];
    return {
      player: { ...PLAYER_INFO },
      now: this.clock.now(),
      entitlements: { apiAccess: (this.#options.plan ?? SETTING_DEFAULTS.plan) === "pro" },
      activeProjectId: this.#activeProjectId,
      projects: engines.map((e) => e.project),
      playstates: engines.map((e) => e.playState()),
      live: Object.fromEntries(engines.map((e) => [e.project.id, e.live])),
      appState: this.#appState,
      presets: [...this.presets()],
      cameras: this.#cameras,
      library: this.library(),
      problems: this.#problems,
    };
  }

  /** Every Project of the library: the open ones, then those that are not, by name. */
  library(): LibraryEntry[] {
    const open = [...this.#engines.values()].map(({ project }): LibraryEntry => ({
      projectId: project.id,
      name: project.name,
      state: "open",
      songCount: project.songs.length,
      clipCount: project.clips.length,
      problem: this.#problems.find((p) => p.projectId === project.id) ?? null,
    }));
    return [...open, ...this.#notOpen];
  }

  /**
   * Quarantines user preset `presetId` (its shader stopped the output's frames): written to
   * `presets.json` and reported, left out of the render state until an edit of its code.
   * False when it is no user preset.
   */
  quarantinePreset(presetId: string, reason: string): Promise<boolean> {
    return this.#editor.setQuarantine(presetId, { at: new Date().toISOString(), reason });
  }

  /**
   * Opens the Project whose folder `projects/<id>` was just put in place (created,
   * duplicated, imported, restored or reopened): loads it, gives it an engine, and tells
   * every client (`project-opened` with the library after it). When no Project was active,
   * it becomes the active one (`active-project-changed`).
   * @throws {Refusal} when a Project of that id is open already
   * @throws {Error} when its file cannot be read (`ProjectStore.readProject`)
   */
  async adoptProject(
    id: string,
    reason: "created" | "duplicated" | "imported" | "restored" | "opened",
  ): Promise<Project> {
    if (this.#engines.has(id)) throw new Refusal(`Project "${id}" is open already`);
    const { project: doc, appliedKeys, problem } = await this.store.readProject(id);
    if (this.#engines.has(id)) throw new Refusal(`Project "${id}" is open already`);
    if (problem) this.#noteProblems([problem]);
    const project = ensureControls(doc);
    const before = new Set(this.#userPresets.map((p) => p.id));
    if (await this.#mergePendingPresets(id)) {
      const changed = this.#userPresets.map((p) => p.id).filter((presetId) =>
        !before.has(presetId)
      );
      const data = { event: "presets-changed", changed, presets: [...this.presets()] };
      if (changed.length > 0) this.#emit({ updateType: "presets", projectId: null, data });
    }
    this.#editor.addAppliedKeys(id, appliedKeys);
    const engine = this.#createEngine(project);
    this.#engines.set(id, engine);
    // Its live state, carried while it was not open (`live_state.ts`); no time passed for it.
    const live = this.#lastLive[id];
    if (live && (reason === "opened" || reason === "restored")) restoreEngine(engine, live, 0);
    const wasClosed = this.#notOpen.some((e) => e.projectId === id && e.state === "closed");
    this.#notOpen = this.#notOpen.filter((e) => e.projectId !== id);
    if (wasClosed) this.#saveSettings();
    this.#emit({
      updateType: "project",
      projectId: id,
      data: {
        event: "project-opened",
        reason,
        project,
        playstate: engine.playState(),
        live: engine.live,
        library: this.library(),
      },
    });
    if (this.#activeProjectId === null) this.#moveActive(id);
    return project;
  }

  /** Puts a replaced Project's folder in the trash (`project.restore` brings it back). */
  keepInTrash(id: string, folder: string): Promise<void> {
    return this.#lifecycle.keepInTrash(id, folder);
  }

  /**
   * Takes an open Project out of play (closed, deleted, or about to be replaced by an import
   * of the same id): disposes its engine, forgets its history and retry keys, lists it as
   * `closed` or `deleted` (a replaced one is about to be adopted again), and tells every client
   * (`project-closed` with the library after it). When it was the active one, the first open
   * Project (or none) becomes active and `active-project-changed` says so; a replaced one
   * stays active, as its successor takes its id. The caller moves its folder.
   * @throws {Refusal} NOT_FOUND when no Project of that id is open
   */
  removeProject(id: string, reason: "closed" | "deleted" | "replaced"): void {
    const engine = this.#engines.get(id);
    if (!engine) throw new Refusal(`Project "${id}" is not open`, RpcErrorCode.NOT_FOUND);
    engine.dispose();
    this.#engines.delete(id);
    this.#editor.forget(id);
    this.#notOpen = this.#notOpen.filter((e) => e.projectId !== id);
    if (reason !== "replaced") this.#notOpen.push(notOpenEntry(engine.project, reason));
    this.#emit({
      updateType: "project",
      projectId: id,
      data: { event: "project-closed", reason, library: this.library() },
    });
    if (this.#activeProjectId === id && reason !== "replaced") {
      this.#moveActive(this.#engines.keys().next().value ?? null);
    }
    this.#saveSettings();
  }

  /** Makes `id` the active Project (null: none) and tells every client. */
  #moveActive(id: string | null): void {
    this.#activeProjectId = id;
    this.#emit({
      updateType: "project",
      projectId: id,
      data: { event: "active-project-changed", activeProjectId: id },
    });
    this.#saveSettings();
  }

  /** Runs one normalized action against its project (or the active one). */
  runAction(action: NormalizedAction): Promise<ActionOutcome> {
    try {
      return Promise.resolve(this.runActionNow(action));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * `runAction` for the protocol server: a synchronous action's outcome comes
   * back at once, one that writes the Project as a promise.
   * @throws {Refusal} when the action is refused or its Project does not exist
   */
  runActionNow(
    action: NormalizedAction,
    idempotencyKey?: string,
  ): ActionOutcome | Promise<ActionOutcome> {
    if (idempotencyKey !== undefined) {
      const known = this.#actionKeys.get(idempotencyKey);
      if (known) return { ...known };
    }
    const projectId = action.projectId ?? this.#activeProjectId;
    const engine = projectId ? this.#engines.get(projectId) : undefined;
    if (action.projectId && !engine) this.#engineOf(action.projectId);
    const outcome = runAction(action, engine, this);
    if (idempotencyKey === undefined) return outcome;
    // Kept with the live state it changed: both are in the next write of live.json.
    const keep = (o: ActionOutcome) => {
      this.#actionKeys.set(idempotencyKey, o);
      this.#liveSaver.markDirty();
      return o;
    };
    return outcome instanceof Promise ? outcome.then(keep) : keep(outcome);
  }

  /** Applies a batch of edits (or undo/redo) as one step; see `Editor`. */
  applyEdits(params: EditApplyParams, options: EditOptions = {}): Promise<EditApplyResult> {
    return this.#editor.apply(params, options);
  }

  /** Applies the batch `build` makes in its turn (the editor page's); see `Editor.applyBuilt`. */
  applyBuiltEdits(build: () => EditApplyParams): Promise<EditApplyResult> {
    return this.#editor.applyBuilt(build);
  }

  /**
   * `applyEdits` for the request loop: a batch that imports files copies them
   * beside other requests (a `Beside`); any other commits in order (a promise).
   * @throws {Refusal} at once for invalid params or a missing Project
   */
  startEdits(
    params: EditApplyParams,
    options: EditOptions,
  ): Promise<EditApplyResult> | Beside<EditApplyResult> {
    return this.#editor.start(params, options);
  }

  /**
   * Where a Project's file is on disk, as it is now (`media.locate`).
   * @throws {Refusal} NOT_FOUND for an unknown Project or file, or a file gone from disk
   */
  async locateFile(projectId: string | null, fileId: string): Promise<MediaLocateResult> {
    const id = projectId ?? this.#activeProjectId;
    const project = id ? this.#engines.get(id)?.project : undefined;
    if (!project) {
      throw new Refusal(
        `Project "${projectId ?? "(active)"}" does not exist`,
        RpcErrorCode.NOT_FOUND,
      );
    }
    const file = project.files.find((f) => f.id === fileId);
    if (!file) {
      throw new Refusal(
        `File "${fileId}" is not in Project "${project.id}"`,
        RpcErrorCode.NOT_FOUND,
      );
    }
    const path = this.store.filePath(project.id, file.path);
    try {
      const stat = await Deno.stat(path);
      return { path, size: stat.size, modifiedAt: stat.mtime?.getTime() ?? 0 };
    } catch {
      throw new Refusal(
        `File "${fileId}" of Project "${project.id}" is missing from disk (${file.path})`,
        RpcErrorCode.NOT_FOUND,
      );
    }
  }

  /**
   * A picture from a camera, by device id (`camera.frame`).
   * @throws {Refusal} NOT_FOUND for an unknown camera, UNAVAILABLE without ffmpeg, ACTION_REFUSED when capture fails
   */
  cameraFrame(cameraId: string): Promise<CameraFrameResult> {
    const camera = this.#cameras.find((c) => c.deviceId === cameraId);
    if (!camera) {
      return Promise.reject(
        new Refusal(`Camera "${cameraId}" does not exist`, RpcErrorCode.NOT_FOUND),
      );
    }
    return this.#cameraFrames.capture(camera);
  }

  /**
   * The output's picture now, as a PNG file under `cache/output/` (`output.frame`).
   * @throws {Refusal} UNAVAILABLE when no output runs
   */
  async outputFrame(): Promise<OutputFrameResult> {
    const output = this.#output;
    if (!output) {
      throw new Refusal(
        "No output runs (the output setting is none, or no display or browser was found)",
        RpcErrorCode.UNAVAILABLE,
      );
    }
    const at = this.clock.now();
    const png = await output.frame();
    const dir = `${this.store.dataDir}/cache/output`;
    await Deno.mkdir(dir, { recursive: true });
    const path = `${dir}/frame.png`;
    await writeFileAtomic(path, png);
    const view = new DataView(png.buffer, png.byteOffset);
    return { path, at, width: view.getUint32(16), height: view.getUint32(20) };
  }

  /** Re-reads projects, presets and cameras from disk; playback stops. */
  async reload(): Promise<Snapshot> {
    for (const engine of this.#engines.values()) engine.dispose();
    this.#engines.clear();
    this.#editor.reset();
    await this.#load();
    const snapshot = this.snapshot();
    this.#emit({
      updateType: "full",
      projectId: null,
      data: { event: "reloaded", state: snapshot },
    });
    return snapshot;
  }

  changeAppState(
    event: string,
    change: Partial<AppState>,
    options: { isVolume?: boolean } = {},
  ): void {
    this.#appState = { ...this.#appState, ...change };
    if (options.isVolume) {
      this.#emit({
        updateType: "volume",
        projectId: null,
        data: { event, level: this.#appState.volume, muted: this.#appState.muted },
      });
    }
    this.#emit({
      updateType: "appState",
      projectId: null,
      data: { event, appState: this.#appState },
    });
    this.#saveSettings();
  }

  async commitProject(
    engine: ProjectEngine,
    change: (project: Project) => { project: Project; updates: StateUpdate[] } | null,
  ): Promise<boolean> {
    let updates: StateUpdate[] = [];
    const project = await this.#editor.commitExternal(engine.project.id, (current) => {
      const next = change(current);
      updates = next?.updates ?? [];
      return next?.project ?? null;
    });
    if (!project) return false;
    for (const update of updates) {
      this.#emit({ ...update, data: { ...update.data, revision: project.revision } });
    }
    return true;
  }

  toggleRecording(mode: "now" | "next-trigger"): string | Promise<string> {
    const message = this.#recorder.toggle(mode);
    this.changeAppState("recording-changed", { recording: this.#recorder.state });
    return message;
  }

  /**
   * Notes a change of the live state that emitted no update (the virtual
   * clock moved): it is saved soon, off the request path.
   */
  liveChanged(): void {
    this.#liveSaver.markDirty();
    this.#output?.changed();
  }

  /** Writes the live state now and waits for it (tests; `close` does it too). */
  flushLiveState(): Promise<void> {
    return this.#liveSaver.flush();
  }

  /**
   * Stops timers and finishes pending writes. The live state is kept, so a
   * restarted service resumes the show (and a recording) like a restarted
   * player does; the recording file notes the gap.
   */
  async close(): Promise<void> {
    for (const engine of this.#engines.values()) engine.dispose();
    await this.#liveSaver.close();
    this.#recorder.suspend();
    await this.#recorder.finished();
    await this.#output?.close();
    await this.#settingsWrite;
  }

  #startOutput(): void {
    const { output, log } = this.#options;
    this.#output = startOutput({
      mode: output?.mode ?? "none",
      browser: output?.browser ?? null,
      clock: this.clock,
      clockRate: this.clock instanceof VirtualClock ? 0 : 1,
      source: () => {
        const engine = this.#activeProjectId ? this.#engines.get(this.#activeProjectId) : null;
        if (!engine) return null;
        return {
          project: engine.project,
          playState: engine.playState(),
          live: engine.live,
          appState: this.#appState,
          presets: this.presets(),
          cameras: this.#cameras,
        };
      },
      media: (projectId, fileId) => {
        const file = this.#engines.get(projectId)?.project.files.find((f) => f.id === fileId);
        return file
          ? { path: this.store.filePath(projectId, file.path), mimeType: file.mimeType }
          : null;
      },
      log: (level, message) => log?.(level, message),
      editor: {
        state: () => this.#appState.editor,
        shown: () => {
          const editor = this.#appState.editor;
          if (editor && !editor.shown) {
            this.changeAppState("editor-shown", { editor: { ...editor, shown: true } });
          }
        },
        hidden: () => {
          const editor = this.#appState.editor;
          if (editor?.shown) {
            this.changeAppState("editor-hidden", { editor: { ...editor, shown: false } });
          }
        },
        closed: () => {
          if (this.#appState.editor) this.changeAppState("editor-closed", { editor: null });
        },
        edit: (build) => this.applyBuiltEdits(build),
      },
      ...(output?.frameBudgetMs ? { frameBudgetMs: output.frameBudgetMs } : {}),
      quarantine: (presetId, reason) => {
        this.quarantinePreset(presetId, reason).catch((error) =>
          log?.("error", `Cannot write the quarantine of preset "${presetId}": ${error.message}`)
        );
      },
      scaleChanged: (drawing) => this.changeAppState("output-scale-changed", { output: drawing }),
      // The recorder reports its state itself (`changed`).
      recordingLost: (outcome) => this.#recorder.lost(outcome),
    });
  }

  async #load(): Promise<void> {
    const { projects, problems, appliedKeys } = await this.store.loadProjects();
    this.#editor.setAppliedKeys(appliedKeys);
    const { value: settings, problem: settingsProblem } = await this.store.loadSettings();
    const presets = await this.store.loadUserPresets();
    this.#userPresets = presets.value;
    const histories = await Promise.all(
      projects.map((p) => checkHistory(this.store.dataDir, p.id)),
    );
    this.#noteProblems([...problems, settingsProblem, presets.problem, ...histories]);
    this.#cameras = await listCameras();
    for (const doc of projects) await this.#mergePendingPresets(doc.id);
    for (const doc of this.#leaveClosed(projects, settings.closedProjectIds)) {
      const project = ensureControls(doc);
      this.#engines.set(project.id, this.#createEngine(project));
    }
    this.#activeProjectId = settings.activeProjectId && this.#engines.has(settings.activeProjectId)
      ? settings.activeProjectId
      : this.#engines.keys().next().value ?? null;
    const wanted = settings.activeProjectId;
    this.#wantedActive = wanted && this.#isDamaged(wanted) ? wanted : null;
    this.#appState = {
      fullScreen: settings.fullScreen,
      muted: settings.muted,
      volume: settings.volume,
      recording: this.#recorder.state,
      editor: null,
      windowReloads: 0,
      lastReloadAt: null,
      output: { renderScale: 1, reason: null },
    };
  }

  /** Adds the presets an import of Project `id` left pending (`show/pending_presets.ts`). */
  async #mergePendingPresets(id: string): Promise<boolean> {
    const merged = await mergePendingPresets(this.store, id, this.#userPresets, BUILT_IN_PRESETS);
    if (merged) this.#userPresets = merged;
    return merged !== null;
  }

  /** The Projects to open: those closed (`project.close`) are listed, not loaded. */
  #leaveClosed(projects: Project[], closedIds: readonly string[]): Project[] {
    const closed = new Set(closedIds);
    this.#notOpen = this.#notOpen.filter((e) => e.state !== "closed");
    for (const project of projects.filter((p) => closed.has(p.id))) {
      this.#notOpen.push(notOpenEntry(project, "closed"));
    }
    return projects.filter((p) => !closed.has(p.id));
  }

  #createEngine(project: Project): ProjectEngine {
    return new ProjectEngine(project, {
      clock: this.clock,
      emit: (u) => this.#emit(u),
      onClipStarted: () => {
        if (this.#recorder.onClipStarted()) {
          this.changeAppState("recording-changed", { recording: this.#recorder.state });
        }
      },
      positionIntervalMs: this.#options.positionIntervalMs ?? SETTING_DEFAULTS.positionIntervalMs,
    });
  }

  #engineOf(projectId: string | null): ProjectEngine {
    const id = projectId ?? this.#activeProjectId;
    const engine = id ? this.#engines.get(id) : undefined;
    if (engine) return engine;
    this.#refuseDamaged(id ?? this.#wantedActive);
    const state = this.#notOpen.find((e) => e.projectId === id)?.state;
    throw new Refusal(
      id ? notOpenHint(id, state) ?? `Project "${id}" does not exist` : "No Project is open",
      RpcErrorCode.NOT_FOUND,
    );
  }

  /** An open editor shows the preset as it is now, or closes when it is removed. */
  #followEditor(patch: ProjectPatch): void {
    const editor = this.#appState.editor;
    if (!editor || !patch.presets || !(editor.presetId in patch.presets)) return;
    const preset = patch.presets[editor.presetId];
    if (preset) {
      this.changeAppState("editor-preset-changed", {
        editor: { ...editor, preset, updatedAt: new Date().toISOString() },
      });
    } else this.changeAppState("editor-closed", { editor: null });
  }

  #emit(update: StateUpdate): void {
    this.#recorder.log(update);
    this.onUpdate(update);
    this.#liveSaver.markDirty();
    this.#output?.changed();
  }

  /** Wall time for the live state, or null on a virtual clock (no time passes there). */
  #wallNow(): number | null {
    if (this.#options.wallNow) return this.#options.wallNow();
    return this.clock instanceof VirtualClock ? null : Date.now();
  }

  /**
   * Logs each problem (one line), keeps it for the snapshot, and lists each Project that
   * could not be loaded as damaged. Problems are kept until the player restarts.
   */
  #noteProblems(found: readonly (DataProblem | null)[]): void {
    for (const problem of found) {
      // A Project left damaged in place is found again by a reload: told once.
      const isKnown = (p: DataProblem) => p.file === problem?.file && p.keptAs === problem.keptAs;
      if (!problem || this.#problems.some(isKnown)) continue;
      this.#options.log?.("warn", damageLine(problem));
      this.#problems.push(problem);
      const { projectId } = problem;
      if (projectId === null || problem.recoveredFrom !== null) continue;
      if (!problem.file.endsWith("/project.json")) continue;
      this.#notOpen = this.#notOpen.filter((e) => e.projectId !== projectId);
      this.#notOpen.push(damagedEntry({ ...problem, projectId }));
    }
  }

  #isDamaged(projectId: string): boolean {
    return this.#notOpen.some((e) => e.projectId === projectId && e.state === "damaged");
  }

  /** The refusal of an action that needs a Project while none is open (`ActionContext.engine`). */
  noProjectRefusal(): Refusal {
    const entry = this.#notOpen.find((e) => e.projectId === this.#wantedActive);
    return entry?.state === "damaged" ? damagedRefusal(entry) : new Refusal("No Project is open");
  }

  /** @throws {Refusal} naming the file and its problem when `projectId` is a damaged Project */
  #refuseDamaged(projectId: string | null): void {
    const entry = this.#notOpen.find((e) => e.projectId === projectId && e.state === "damaged");
    if (entry) throw damagedRefusal(entry);
  }

  /** The live state to write now, the entries of Projects not open carried over. */
  #captureLive(): LiveState {
    const state = captureLiveState(this.#engines, this.#recorder, this.#wallNow() ?? Date.now(), {
      output: { volume: this.#appState.volume, muted: this.#appState.muted },
      actionKeys: this.#actionKeys.toJSON(),
      carried: this.#carriedLive(),
    });
    this.#lastLive = state.projects;
    return state;
  }

  /** The live state entries of the Projects of the library that are not open, as last known. */
  #carriedLive(): Record<string, ProjectLive> {
    const carried: Record<string, ProjectLive> = {};
    for (const { projectId } of this.#notOpen) {
      const live = this.#lastLive[projectId];
      if (live && !this.#engines.has(projectId)) carried[projectId] = live;
    }
    return carried;
  }

  /** Resumes the show a previous run saved, before anything is served. */
  async #restoreLive(): Promise<void> {
    const { app, carried, problem } = await restoreLiveState(
      `${this.store.dataDir}/${LIVE_STATE_FILE}`,
      {
        engines: this.#engines,
        recorder: this.#recorder,
        wallNow: this.#wallNow(),
        dataDir: this.store.dataDir,
        notOpen: new Set(this.#notOpen.map((e) => e.projectId)),
        ...(this.#options.log ? { log: this.#options.log } : {}),
      },
    );
    this.#noteProblems([problem]);
    this.#lastLive = carried;
    this.#actionKeys.load(app?.actionKeys ?? []);
    this.#appState = { ...this.#appState, ...app?.output, recording: this.#recorder.state };
  }

  /** Saves settings; writes never overlap and the last state always lands. */
  #saveSettings(): void {
    if (this.#settingsDirty) return;
    this.#settingsDirty = true;
    this.#settingsWrite = this.#settingsWrite.then(() => {
      this.#settingsDirty = false;
      const settings: PlayerSettings = {
        activeProjectId: this.#activeProjectId,
        fullScreen: this.#appState.fullScreen,
        muted: this.#appState.muted,
        volume: this.#appState.volume,
        closedProjectIds: this.#notOpen.filter((e) => e.state === "closed").map((e) => e.projectId),
      };
      return this.store.saveSettings(settings);
    }).catch((error) => this.#options.log?.("error", `Cannot save settings: ${error.message}`));
  }

  /**
   * Makes open Project `id` the active one: actions and queries without a `projectID` go
   * to it. Saved in `player.json` and reported (`active-project-changed`); a Project that
   * is active already is answered unchanged. `PROJECT_SELECT` runs it.
   * @throws {Refusal} NOT_FOUND when no Project of that id is open; ACTION_REFUSED with the
   *   reason for one that is closed, damaged or deleted
   */
  selectProject(id: string): ActionOutcome {
    if (id === this.#activeProjectId) {
      return { applied: false, message: `Project ${quoted(id)} is the active Project already` };
    }
    if (!this.#engines.has(id)) {
      const entry = this.#notOpen.find((e) => e.projectId === id);
      if (!entry) {
        throw new Refusal(`Project ${quoted(id)} does not exist`, RpcErrorCode.NOT_FOUND);
      }
      throw new Refusal(
        `Project ${quoted(id)} is ${entry.state}: ${NOT_OPEN_REMEDY[entry.state]}` +
          (entry.problem ? ` (${entry.problem.file}: ${entry.problem.problem})` : ""),
      );
    }
    this.#moveActive(id);
    return { applied: true, message: `Project ${quoted(id)} is the active Project` };
  }
}

/** The library's entry of a Project that is not open. */
function notOpenEntry(project: Project, state: "closed" | "deleted"): LibraryEntry {
  const { id: projectId, name, songs, clips } = project;
  return {
    projectId,
    name,
    state,
    songCount: songs.length,
    clipCount: clips.length,
    problem: null,
  };
}
