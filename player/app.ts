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
import { type Preset, Project } from "../protocol/model.ts";
import type { AppState, Camera, Snapshot, StateUpdate } from "../protocol/state.ts";
import type { LibraryEntry } from "../protocol/library.ts";
import { type AppServices, runAction } from "./actions/mod.ts";
import { CameraFrames } from "./camera_frames.ts";
import { listCameras } from "./cameras.ts";
import type { Clock } from "./clock.ts";
import { ProjectEngine } from "./engine/project_engine.ts";
import { Refusal } from "./errors.ts";
import { BUILT_IN_PRESETS } from "./presets.ts";
import { Recorder } from "./recorder.ts";
import { type PlayerSettings, ProjectStore } from "./store.ts";
import { type EditOptions, Editor } from "./edits/mod.ts";
import type { Beside } from "./beside.ts";
import type { AppliedKey } from "./applied_keys.ts";
import type { EditApplyParams, EditApplyResult } from "../protocol/edits/mod.ts";
import type { ProjectPatch } from "../protocol/patch.ts";
import { LiveKeeper } from "./live_keeper.ts";
import { checkHistory } from "./edits/history.ts";
import { SETTING_DEFAULTS } from "../protocol/settings.ts";
import type { Output } from "./output/mod.ts";
import { mergePendingPresets } from "./show/pending_presets.ts";
import { Lifecycle } from "./library/lifecycle.ts";
import type { PlayerOptions } from "./player_options.ts";
import { saveOutputFrame, startAppOutput } from "./app_output.ts";
import { tidyDataDir } from "./library/tidy.ts";
import { OpenProjects } from "./library/open_projects.ts";
import { SettingsQueue } from "./library/settings_queue.ts";

/** Player name and version reported in the handshake and snapshot. */
export const PLAYER_INFO = { name: "cueport-player", version: "0.1.0" } as const;

export type { PlayerOptions } from "./player_options.ts";

/** The application. */
export class PlayerApp implements AppServices {
  readonly store: ProjectStore;
  readonly clock: Clock;
  /** Receives every update; set by whoever publishes them. */
  onUpdate: (update: StateUpdate) => void = () => {};
  #options: PlayerOptions;
  /** The library: open Projects and their engines, the active one, those not open. */
  #projects: OpenProjects;
  #appState!: AppState;
  #userPresets: Preset[] = [];
  #cameras: Camera[] = [];
  #recorder: Recorder;
  #settings: SettingsQueue;
  #editor: Editor;
  #live: LiveKeeper;
  #cameraFrames: CameraFrames;
  #output: Output | null = null;
  #lifecycle: Lifecycle;

  private constructor(options: PlayerOptions) {
    this.#options = options;
    this.clock = options.clock;
    this.store = new ProjectStore(options.dataDir);
    this.#projects = new OpenProjects({
      store: this.store,
      createEngine: (project) => this.#createEngine(project),
      beforeOpen: (id, appliedKeys) => this.#beforeOpen(id, appliedKeys),
      forget: (id) => this.#editor.forget(id),
      emit: (update) => this.#emit(update),
      saveSettings: () => this.#settings.save(),
      warn: (message) => options.log?.("warn", message),
    });
    this.#settings = new SettingsQueue(
      () => this.store.saveSettings(this.#settingsNow()),
      (message) => options.log?.("error", message),
    );
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
    this.#live = new LiveKeeper({
      dataDir: options.dataDir,
      clock: this.clock,
      projects: this.#projects,
      recorder: this.#recorder,
      output: () => ({ volume: this.#appState.volume, muted: this.#appState.muted }),
      ...(options.wallNow ? { wallNow: options.wallNow } : {}),
      ...(options.log ? { log: options.log } : {}),
    });
    this.#editor = this.#createEditor(options);
    this.#lifecycle = new Lifecycle({
      store: this.store,
      engine: (id) => this.#projects.engine(id),
      library: () => this.library(),
      adopt: (id, reason) => this.adoptProject(id, reason),
      remove: (id, reason) => this.removeProject(id, reason),
      deleteNotOpen: (id) => this.#projects.deleteNotOpen(id),
      importing: (id) => this.#editor.importsInto(id),
      forget: (id) => this.#projects.notOpen.forget(id),
      settingsSaved: () => this.#settings.saved(),
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
    const info = (message: string) => options.log?.("info", message);
    await tidyDataDir(app.store, info, options.serviceStartedAt);
    const trash = await app.#lifecycle.loadTrash();
    await app.#load();
    await app.#listDeleted(trash);
    const output = await app.#live.restore();
    app.#appState = { ...app.#appState, ...output, recording: app.#recorder.state };
    app.#output = startAppOutput(app, {
      projects: app.#projects,
      cameras: () => app.#cameras,
      recorder: app.#recorder,
      output: options.output,
      log: options.log,
    });
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
    const engines = [...this.#projects.engines.values()];
    return {
      player: { ...PLAYER_INFO },
      now: this.clock.now(),
      entitlements: { apiAccess: (this.#options.plan ?? SETTING_DEFAULTS.plan) === "pro" },
      activeProjectId: this.#projects.activeId,
      projects: engines.map((e) => e.project),
      playstates: engines.map((e) => e.playState()),
      live: Object.fromEntries(engines.map((e) => [e.project.id, e.live])),
      appState: this.#appState,
      presets: [...this.presets()],
      cameras: this.#cameras,
      library: this.library(),
      problems: this.#projects.notOpen.problems,
    };
  }

  /** Every Project of the library: the open ones, then those that are not, by name. */
  library(): LibraryEntry[] {
    return this.#projects.library();
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
  adoptProject(
    id: string,
    reason: "created" | "duplicated" | "imported" | "restored" | "opened",
  ): Promise<Project> {
    return this.#projects.adopt(id, reason);
  }

  /**
   * Whether imports copy files into Project `id` now (from their start to their commit):
   * its folder must stay in place meanwhile, so a delete, a close or a show import's
   * `replace` of it waits for them.
   */
  isImporting(id: string): boolean {
    return this.#editor.importsInto(id) > 0;
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
    this.#projects.remove(id, reason);
  }

  /**
   * Makes open Project `id` the active one: actions and queries without a `projectID` go
   * to it. Saved in `player.json` and reported (`active-project-changed`); a Project that
   * is active already is answered unchanged. `PROJECT_SELECT` runs it.
   * @throws {Refusal} NOT_FOUND when no Project of that id is open; ACTION_REFUSED with the
   *   reason for one that is closed, damaged or deleted
   */
  selectProject(id: string): ActionOutcome {
    return this.#projects.select(id);
  }

  /**
   * Lists the Projects of the trash a restarted player found as deleted (restorable), as they
   * were listed before the restart; one whose id is in the library otherwise is left out.
   */
  async #listDeleted(trash: readonly { id: string; dir: string }[]): Promise<void> {
    for (const { id, dir } of trash) {
      const listed = this.#projects.get(id) ||
        this.#projects.notOpen.entries.some((e) => e.projectId === id);
      if (listed) continue;
      try {
        const project = Project.parse(JSON.parse(await Deno.readTextFile(`${dir}/project.json`)));
        this.#projects.notOpen.list({ ...project, id }, "deleted");
      } catch {
        // A damaged Project deleted: restorable all the same (`project.restore` says how it reads).
      }
    }
  }

  /** The refusal of an action that needs a Project while none is open (`ActionContext.engine`). */
  noProjectRefusal(): Refusal {
    return this.#projects.notOpen.noProjectRefusal();
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
      const known = this.#live.actionKeys.get(idempotencyKey);
      if (known) return { ...known };
    }
    const engine = this.#projects.get(action.projectId);
    if (action.projectId && !engine) this.#projects.engine(action.projectId);
    const outcome = runAction(action, engine, this);
    if (idempotencyKey === undefined) return outcome;
    // Kept with the live state it changed: both are in the next write of live.json.
    const keep = (o: ActionOutcome) => {
      this.#live.actionKeys.set(idempotencyKey, o);
      this.#live.markDirty();
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
  locateFile(projectId: string | null, fileId: string): Promise<MediaLocateResult> {
    return this.#projects.locateFile(projectId, fileId);
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
  outputFrame(): Promise<OutputFrameResult> {
    return saveOutputFrame(this.#output, this.clock, this.store.dataDir);
  }

  /** Re-reads projects, presets and cameras from disk; playback stops. */
  async reload(): Promise<Snapshot> {
    this.#projects.disposeAll(true);
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
    this.#settings.save();
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
    this.#live.markDirty();
    this.#output?.changed();
  }

  /** Writes the live state now and waits for it (tests; `close` does it too). */
  flushLiveState(): Promise<void> {
    return this.#live.flush();
  }

  /**
   * Stops timers and finishes pending writes. The live state is kept, so a
   * restarted service resumes the show (and a recording) like a restarted
   * player does; the recording file notes the gap.
   */
  async close(): Promise<void> {
    this.#projects.disposeAll(false);
    await this.#live.close();
    this.#recorder.suspend();
    await this.#recorder.finished();
    await this.#output?.close();
    await this.#settings.saved();
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
    this.#projects.notOpen.noteProblems([
      ...problems,
      settingsProblem,
      presets.problem,
      ...histories,
    ]);
    this.#cameras = await listCameras();
    for (const doc of projects) await this.#mergePendingPresets(doc.id);
    this.#projects.load(projects, settings.closedProjectIds, settings.activeProjectId);
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
    const merged = await mergePendingPresets(
      this.store,
      id,
      this.#userPresets,
      BUILT_IN_PRESETS,
      (message) => this.#options.log?.("warn", message),
    );
    if (merged) this.#userPresets = merged;
    return merged !== null;
  }

  /** Readies Project `id` opened after start: its pending presets (said), its retry keys. */
  async #beforeOpen(id: string, appliedKeys: AppliedKey[]): Promise<void> {
    const before = new Set(this.#userPresets.map((p) => p.id));
    if (await this.#mergePendingPresets(id)) {
      const changed = this.#userPresets.map((p) => p.id).filter((presetId) =>
        !before.has(presetId)
      );
      const data = { event: "presets-changed", changed, presets: [...this.presets()] };
      if (changed.length > 0) this.#emit({ updateType: "presets", projectId: null, data });
    }
    this.#editor.addAppliedKeys(id, appliedKeys);
  }

  #createEditor(options: PlayerOptions): Editor {
    return new Editor({
      store: this.store,
      builtInPresets: BUILT_IN_PRESETS,
      engine: (projectId) => this.#projects.engine(projectId),
      projects: () => [...this.#projects.engines.values()].map((e) => e.project),
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
    this.#live.markDirty();
    this.#output?.changed();
  }

  /** The settings to write now (`player.json`). */
  #settingsNow(): PlayerSettings {
    return {
      activeProjectId: this.#projects.activeId,
      fullScreen: this.#appState.fullScreen,
      muted: this.#appState.muted,
      volume: this.#appState.volume,
      closedProjectIds: this.#projects.notOpen.closedIds(),
    };
  }
}
