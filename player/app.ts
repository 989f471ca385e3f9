/**
 * The player application: projects loaded from disk, one engine per project, app state,
 * presets, cameras, recording and entitlements. It runs catalog actions and reports every
 * change as state updates. Its parts live in their own files, wired in `app_parts.ts`; this
 * class is what the protocol's methods and the actions (`AppServices`) call.
 * @module
 */
import type { NormalizedAction } from "../protocol/actions.ts";
import type { EditApplyParams, EditApplyResult } from "../protocol/edits/mod.ts";
import type { LibraryEntry } from "../protocol/library.ts";
import type {
  ActionOutcome,
  CameraFrameResult,
  MediaLocateResult,
  MidiLocalParams,
  OutputFrameAsk,
  OutputFrameResult,
} from "../protocol/methods.ts";
import type { Preset, Project } from "../protocol/model.ts";
import type { AppState, Snapshot, StateUpdate } from "../protocol/state.ts";
import { type AppServices, runAction } from "./actions/mod.ts";
import type { Lateness } from "./actions/late.ts";
import { loadApp, openApp } from "./app_load.ts";
import { EditorForward, startAppOutput } from "./app_output.ts";
import { type AppParts, assembleApp } from "./app_parts.ts";
import { appSnapshot } from "./app_snapshot.ts";
import type { ChangeOptions } from "./app_status.ts";
import type { Beside } from "./beside.ts";
import type { Clock } from "./clock.ts";
import type { EditOptions, Editor } from "./edits/mod.ts";
import type { ProjectEngine } from "./engine/project_engine.ts";
import type { Refusal } from "./errors.ts";
import type { OpenProjects } from "./library/open_projects.ts";
import type { LiveKeeper } from "./live_keeper.ts";
import type { OutputDisplays } from "../protocol/displays.ts";
import { listDisplays } from "./output/displays.ts";
import type { Output } from "./output/mod.ts";
import type { PlayerOptions } from "./player_options.ts";
import type { TimecodeSampleParams, TimecodeState } from "../protocol/timecode.ts";
import type { ProjectStore } from "./store.ts";

export { PLAYER_INFO } from "./app_snapshot.ts";

export type { PlayerOptions } from "./player_options.ts";

/** The application. */
export class PlayerApp implements AppServices {
  readonly store: ProjectStore;
  readonly clock: Clock;
  /** Receives every update; set by whoever publishes them. */
  onUpdate: (update: StateUpdate) => void = () => {};
  /** Told the output's local MIDI ports and their input (`midi.local`; `rpc_server.ts`). */
  onMidi: (event: MidiLocalParams) => void = () => {};
  readonly editorForward = new EditorForward(); // the editor page's edits, in a group (1.17)
  #options: PlayerOptions;
  /** The parts, wired to each other (`app_parts.ts`). */
  #parts: AppParts;
  /** The library: open Projects and their engines, the active one, those not open. */
  #projects: OpenProjects;
  #editor: Editor;
  #live: LiveKeeper;
  #output: Output | null = null;

  private constructor(options: PlayerOptions) {
    this.#options = options;
    this.clock = options.clock;
    this.#parts = assembleApp(options, {
      emit: (update) => this.#emit(update),
      output: () => this.#output,
    });
    ({ store: this.store, projects: this.#projects, editor: this.#editor, live: this.#live } =
      this.#parts);
  }

  /**
   * Opens the application on its data dir (`openApp`: the demo Project on the first start, what
   * a previous run left unfinished tidied, its show resumed, so the first snapshot shows it),
   * then starts the output.
   */
  static async open(options: PlayerOptions): Promise<PlayerApp> {
    const app = new PlayerApp(options);
    await openApp(app.#parts, options);
    app.#output = startAppOutput(app, {
      projects: app.#projects,
      cameras: () => app.#parts.media.cameras,
      recorder: app.#parts.recording.recorder,
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
    return this.#parts.recording.recorder.finished();
  }

  /** The app state now (`app_status.ts`). */
  get appState(): AppState {
    return this.#parts.status.state;
  }

  /** Every preset: the built-in ones, then the user's. */
  presets(): readonly Preset[] {
    return this.#parts.presets.all();
  }

  /** Everything, at the current clock reading (`app_snapshot.ts`). */
  snapshot(): Snapshot {
    return appSnapshot(this.#parts, this.#options);
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

  /** Opens the Project whose folder was just put in place, and tells every client; see `OpenProjects.adopt`. */
  adoptProject(
    id: string,
    reason: "created" | "duplicated" | "imported" | "restored" | "opened",
  ): Promise<Project> {
    return this.#projects.adopt(id, reason);
  }

  /**
   * How many files imports copy into Project `id` now (from their start to their commit): its
   * folder must stay in place meanwhile, so a delete, a close or a show import's `replace` of it
   * is refused until they end.
   */
  importing(id: string): number {
    return this.#editor.importsInto(id);
  }

  /** Puts a replaced Project's folder in the trash (`project.restore` brings it back). */
  keepInTrash(id: string, folder: string): Promise<void> {
    return this.#parts.lifecycle.keepInTrash(id, folder);
  }

  /** Takes an open Project out of play, and tells every client; see `OpenProjects.remove`. */
  removeProject(id: string, reason: "closed" | "deleted" | "replaced"): void {
    this.#projects.remove(id, reason);
  }

  /** Makes open Project `id` the active one (`PROJECT_SELECT`); see `OpenProjects.select`. */
  selectProject(id: string): ActionOutcome {
    return this.#projects.select(id);
  }

  /**
   * Follows one sample of incoming timecode with the active Project's active Song
   * (`engine/chase.ts`); answers how it chases.
   * @throws {Refusal} when no Project is open
   */
  timecode(sample: TimecodeSampleParams): TimecodeState {
    const engine = this.#projects.get(null);
    if (!engine) throw this.noProjectRefusal();
    return engine.timecode(sample);
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
   * `runAction` for the protocol server: a synchronous action's outcome at once, one that writes
   * the Project as a promise; once per retry key (`LiveKeeper.runOnce`); `late` (1.14) caught up.
   * @throws {Refusal} when the action is refused or its Project does not exist
   */
  runActionNow(
    action: NormalizedAction,
    idempotencyKey?: string,
    late?: Lateness,
  ): ActionOutcome | Promise<ActionOutcome> {
    return this.#live.runOnce(idempotencyKey, () => {
      const engine = this.#projects.get(action.projectId);
      if (action.projectId && !engine) this.#projects.engine(action.projectId);
      return this.#parts.recording.decidedBy(late?.at, () => runAction(action, engine, this, late));
    });
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

  /** Where a Project's file is on disk, as it is now (`media.locate`); see `OpenProjects.locateFile`. */
  locateFile(projectId: string | null, fileId: string): Promise<MediaLocateResult> {
    return this.#projects.locateFile(projectId, fileId);
  }

  /** A picture from a camera, by device id (`camera.frame`); see `AppMedia.cameraFrame`. */
  cameraFrame(cameraId: string): Promise<CameraFrameResult> {
    return this.#parts.media.cameraFrame(cameraId);
  }

  /** The output's picture now, as a file (`output.frame`); see `AppMedia.outputFrame`. */
  outputFrame(asked: OutputFrameAsk = {}): Promise<OutputFrameResult> {
    return this.#parts.media.outputFrame(asked);
  }

  /**
   * The machine's displays and the output's (`output.displays`): the output's window answers;
   * without one (`none`, `headless`) the list alone, on no display.
   */
  async displays(): Promise<OutputDisplays> {
    if (this.#output) return await this.#output.window.displays();
    const list = await listDisplays();
    return { ...list, choice: this.appState.outputDisplay, current: null };
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

  /** Applies a change to the app state and reports it (`AppStatus.change`). */
  changeAppState(event: string, change: Partial<AppState>, options: ChangeOptions = {}): void {
    this.#parts.status.change(event, change, options);
  }

  /** Writes a new revision of `engine`'s Project and reports it (`AppServices.commitProject`). */
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

  /** Starts recording, arms it, or stops it (`AppRecording.toggle`). */
  toggleRecording(mode: "now" | "next-trigger"): string | Promise<string> {
    return this.#parts.recording.toggle(mode);
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
    this.#parts.recording.recorder.suspend();
    await this.#parts.recording.recorder.finished();
    await this.#output?.close();
    await this.#parts.settings.saved();
  }

  #load(): Promise<void> {
    return loadApp(this.#parts);
  }

  #emit(update: StateUpdate): void {
    this.#parts.recording.recorder.log(update);
    this.onUpdate(update);
    this.#live.markDirty();
    this.#output?.changed();
  }
}
