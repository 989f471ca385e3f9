/**
 * The player's editor: validates a batch of edits against the catalog,
 * applies it to a private copy, and commits it as one undoable step (all or
 * nothing). Every commit is on disk (presets, project, then history) before
 * it is reported; updates follow the write. A batch that imports files first
 * copies them beside other requests (`import_jobs.ts`, `Beside`), then
 * commits like any other.
 * @module
 */
import {
  type EditApplyParams,
  type EditApplyResult,
  type EditOutcome,
  EDITS_BY_NAME,
} from "../../protocol/edits/mod.ts";
import { LIFECYCLE_EDITS } from "../../protocol/edits/project.ts";
import { type Preset, Project } from "../../protocol/model.ts";
import {
  applyPatch,
  applyPresetPatch,
  diffProject,
  type ProjectPatch,
} from "../../protocol/patch.ts";
import type { StateUpdate } from "../../protocol/state.ts";
import { Beside } from "../beside.ts";
import type { ProjectEngine } from "../engine/project_engine.ts";
import { Refusal } from "../errors.ts";
import type { ProjectStore } from "../store.ts";
import { CLIP_HANDLERS } from "./clip_edits.ts";
import { type EditDraft, type EditHandler, isTaken, newId } from "./draft.ts";
import { placeImport } from "./file_import.ts";
import { failJobs, type ImportJob, importUpdate, stageImports } from "./import_jobs.ts";
import { FX_HANDLERS } from "./fx_edits.ts";
import { type History, type HistoryEntry, loadHistory, saveHistory } from "./history.ts";
import { orphanedMedia } from "./orphans.ts";
import { type AppliedKey, withAppliedKey } from "../applied_keys.ts";
import { type ParsedEdit, parseEdits } from "./parse.ts";
import { PROJECT_HANDLERS } from "./project_edits.ts";
import { SONG_HANDLERS } from "./song_edits.ts";
import { checkIsfCodeBeside } from "./preset_rules.ts";
import { keepQuarantines } from "./preset_quarantine.ts";
import { refuseOverBudget } from "../output/texture_budget.ts";

const HANDLERS: Record<string, EditHandler> = {
  ...CLIP_HANDLERS,
  ...SONG_HANDLERS,
  ...PROJECT_HANDLERS,
  ...FX_HANDLERS,
  "file.import": async (d, p) => {
    const file = await d.importFile(p.path, p.name);
    d.project.files.push(file);
    d.created.fileId = file.id;
    return `File "${file.id}" imported as ${file.path} (${file.kind}, ${file.size} bytes)`;
  },
};

for (const name of EDITS_BY_NAME.keys()) {
  const isElsewhere = name === "project.undo" || name === "project.redo" ||
    LIFECYCLE_EDITS.has(name);
  if (!isElsewhere && !HANDLERS[name]) {
    throw new Error(`Edit "${name}" has no handler`);
  }
}

/**
 * The batch's lifecycle edit (`project.create` ...), or null when it has none.
 * @throws {Refusal} when one comes with other edits: each runs alone
 */
function lifecycleEdit(parsed: readonly ParsedEdit[]): ParsedEdit | null {
  const found = parsed.find((e) => LIFECYCLE_EDITS.has(e.spec.name));
  if (found && parsed.length > 1) {
    throw new Refusal(
      `${found.spec.name} cannot be part of a batch: send it alone, then the edits of the Project`,
    );
  }
  return found ?? null;
}

/** Runs one edit's handler; a refusal naming a field (`data.field`) gets the edit's index as `data.edit`. */
async function inEdit(index: number, run: () => string | Promise<string>): Promise<string> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof Refusal) || typeof error.data?.field !== "string") throw error;
    throw new Refusal(error.message, error.code, { ...error.data, edit: index });
  }
}

/** What the editor needs from the application. */
export interface EditorHost {
  readonly store: ProjectStore;
  readonly builtInPresets: readonly Preset[];
  /** The engine of a Project (null: the active one). @throws {Refusal} NOT_FOUND */
  engine(projectId: string | null): ProjectEngine;
  /** Every open Project, as it is now. */
  projects(): readonly Project[];
  userPresets(): Preset[];
  setUserPresets(presets: Preset[]): void;
  emit(update: StateUpdate): void;
  /** Called after the user presets changed (the open editor follows them). */
  presetsChanged(patch: ProjectPatch): void;
  historyLimit: number;
  /** The output's texture budget for all Effects and Visualizers, bytes (`texture_budget.ts`). */
  textureBudgetBytes: number;
  log(message: string): void;
  /** Runs a lifecycle edit (`player/library/lifecycle.ts`) in the editor's turn; `projectId` is the batch's. */
  lifecycle(edit: ParsedEdit, projectId: string | null): Promise<EditApplyResult>;
}

/** Options of one batch. */
export interface EditOptions {
  /**
   * Import progress, sent at once (not held until the answer): the update for
   * clients, and the batch's bytes copied and in all.
   */
  onProgress?: (update: StateUpdate, done: number, total: number) => void;
  /** Stops copies in progress (the service went away); their partial files are removed. */
  signal?: AbortSignal;
}

/**
 * Batches copying at once, at most. Each copies its files one after the
 * other; more would only share the disk, so a fifth is refused, not queued.
 */
const MAX_IMPORTING = 4;

/** Applies edits, undo and redo. */
export class Editor {
  #host: EditorHost;
  #histories = new Map<string, History>();
  /** Per Project, the retry keys its edits were applied with (saved with the Project). */
  #appliedKeys = new Map<string, AppliedKey[]>();
  /** Keys of imports still copying beside the order, with the outcome of their commit. */
  #copying = new Map<string, Promise<EditApplyResult>>();
  #importing = 0;
  /** Per Project, how many batches copy files into it (from their start to their commit). */
  #importsInto = new Map<string, number>();
  /**
   * Commits take turns: the player's request order runs one at a time already, but the
   * editor window's edits (`output/editor_page.ts`) come from beside it, and a commit
   * awaits (an ISF check, the disk) between reading the Project and writing it.
   */
  #turn: Promise<unknown> = Promise.resolve();
  /** Batches out of the order while their code is checked (`#afterChecks`). */
  #besides = 0;

  /** Builds the editor over `host`. */
  constructor(host: EditorHost) {
    this.#host = host;
  }

  /** Forgets loaded histories (after a reload from disk). */
  reset(): void {
    this.#histories.clear();
  }

  /** The retry keys loaded with the Projects (`ProjectStore.loadProjects`). */
  setAppliedKeys(keys: Map<string, AppliedKey[]>): void {
    this.#appliedKeys = new Map(keys);
  }

  /** The retry keys of a Project opened after start (`PlayerApp.adoptProject`); its history is read when first used. */
  addAppliedKeys(projectId: string, keys: AppliedKey[]): void {
    this.#appliedKeys.set(projectId, keys);
    this.#histories.delete(projectId);
  }

  /** Forgets a Project that went (closed, deleted or replaced): its history and retry keys. */
  forget(projectId: string): void {
    this.#appliedKeys.delete(projectId);
    this.#histories.delete(projectId);
  }

  /** How many files batches are importing into Project `projectId` (copying, or waiting to commit). */
  importsInto(projectId: string): number {
    return this.#importsInto.get(projectId) ?? 0;
  }

  /** Undo and redo depths of a Project. */
  async depth(projectId: string, revision: number): Promise<{ undo: number; redo: number }> {
    const h = await this.#history(projectId, revision);
    return { undo: h.undo.length, redo: h.redo.length };
  }

  /**
   * Runs a batch and resolves once it is committed.
   * @throws {Refusal} INVALID_PARAMS, NOT_FOUND, media codes,
   * or ACTION_REFUSED for a conflict
   */
  async apply(params: EditApplyParams, options: EditOptions = {}): Promise<EditApplyResult> {
    const work = this.start(params, options);
    return work instanceof Beside ? await work.settle() : await work;
  }

  /**
   * Starts a batch for the request loop: one that imports files returns a
   * `Beside` (the copy runs beside other requests, the commit then joins their
   * order); any other, the promise of its commit.
   * @throws {Refusal} at once for invalid params or a missing Project
   */
  start(
    params: EditApplyParams,
    options: EditOptions = {},
  ): Promise<EditApplyResult> | Beside<EditApplyResult> {
    const parsed = parseEdits(params);
    const lifecycle = lifecycleEdit(parsed);
    if (lifecycle) return this.#inTurn(() => this.#host.lifecycle(lifecycle, params.projectId));
    return this.#start(params, parsed, options);
  }

  /** `start` for a batch of edits of one Project. */
  #start(
    params: EditApplyParams,
    parsed: ParsedEdit[],
    options: EditOptions,
  ): Promise<EditApplyResult> | Beside<EditApplyResult> {
    const engine = this.#host.engine(params.projectId);
    const key = params.idempotencyKey;
    const again = key === undefined ? null : this.#again(engine, key);
    if (again) return again;
    const first = parsed[0]!.spec.name;
    const imports = parsed.filter((e) => e.spec.name === "file.import")
      .map((e) => e.params as { path: string; name?: string });
    if (imports.length === 0) {
      const projectId = engine.project.id;
      const commit = (target: ProjectEngine) =>
        first === "project.undo" || first === "project.redo"
          ? this.#step(target, first === "project.undo" ? "undo" : "redo", key)
          : this.#run(target, parsed, [], key);
      const checks = checkIsfCodeBeside(parsed);
      if (!checks && this.#besides === 0) return this.#inTurn(() => commit(engine));
      return this.#afterChecks(checks, key, () => commit(this.#host.engine(projectId)));
    }
    if (this.#importing >= MAX_IMPORTING) {
      throw new Refusal(
        `Too many imports at once: ${this.#importing} are copying; send this one when one has finished`,
      );
    }
    this.#importing++;
    const projectId = engine.project.id;
    const staging = stageImports(imports, {
      projectId,
      mediaDir: `${this.#host.store.projectDir(projectId)}/media`,
      isMove: params.isUpload === true,
      isTaken: (id) => isTaken(engine.project, id),
      emit: (update) => this.#host.emit(update),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    }).finally(() => this.#importing--);
    const committed = Promise.withResolvers<EditApplyResult>();
    committed.promise.catch(() => {}); // only retries that come meanwhile read it
    this.#countImports(projectId, imports.length, committed.promise);
    if (key !== undefined) {
      this.#copying.set(key, committed.promise);
      committed.promise.finally(() => this.#copying.delete(key)).catch(() => {});
    }
    staging.catch((error) => committed.reject(error));
    return new Beside(staging.then((jobs) => async () => {
      let target: ProjectEngine;
      try {
        target = this.#host.engine(projectId); // the same Project, even if it was reloaded
      } catch (error) {
        await failJobs(jobs, error, { projectId, emit: (u) => this.#host.emit(u) });
        committed.reject(error);
        throw error;
      }
      try {
        const result = await this.#inTurn(() => this.#run(target, parsed, jobs, key));
        committed.resolve(result);
        return result;
      } catch (error) {
        committed.reject(error);
        throw error;
      }
    }));
  }

  /** Counts `files` imported into Project `projectId` until `done` settles. */
  #countImports(projectId: string, files: number, done: Promise<unknown>): void {
    const add = (n: number) => {
      const count = this.importsInto(projectId) + n;
      if (count > 0) this.#importsInto.set(projectId, count);
      else this.#importsInto.delete(projectId);
    };
    add(files);
    done.finally(() => add(-files)).catch(() => {});
  }

  /**
   * A batch that leaves the order while the ISF code it carries is checked (`checks`, on
   * workers), so actions read after it are answered meanwhile. Its turn among commits is
   * taken now (an edit of the editor page read later is built on it), and it commits once its
   * checks are done; while one is out, every batch goes out (behind it in the turns), so
   * none holds the order waiting for its turn. A retry of its `key` meanwhile gets its outcome.
   */
  #afterChecks(
    checks: Promise<void> | null,
    key: string | undefined,
    commit: () => Promise<EditApplyResult>,
  ): Beside<EditApplyResult> {
    this.#besides++;
    const result = this.#inTurn(async () => {
      await checks;
      return await commit();
    });
    result.finally(() => this.#besides--).catch(() => {});
    if (key !== undefined) {
      this.#copying.set(key, result);
      result.finally(() => this.#copying.delete(key)).catch(() => {});
    }
    return new Beside(result.then((value) => () => value, (error) => () => Promise.reject(error)));
  }

  /**
   * The answer to a retry of the batch `key` names: the first's result once
   * committed, or, while the first still copies its files (only an import
   * leaves the order), a turn right after the first's commit that answers its
   * outcome; null for a new key.
   */
  #again(
    engine: ProjectEngine,
    key: string,
  ): Promise<EditApplyResult> | Beside<EditApplyResult> | null {
    const applied = this.#appliedKeys.get(engine.project.id)?.find((k) => k.key === key);
    if (applied) return Promise.resolve(structuredClone(applied.result));
    const first = this.#copying.get(key);
    if (!first) return null;
    return new Beside(first.then(
      (result) => () => structuredClone(result),
      (error) => () => Promise.reject(error),
    ));
  }

  /**
   * Runs the batch `build` makes when its turn comes: built from the Project and presets as
   * every commit before it left them (a control moved in the editor page changes the preset
   * as it is then, not as the page last saw it). Undo and redo as `apply`; no imports.
   * @throws {Refusal} as `apply`, or what `build` throws
   */
  applyBuilt(build: () => EditApplyParams): Promise<EditApplyResult> {
    return this.#inTurn(() => {
      const params = build();
      const engine = this.#host.engine(params.projectId);
      const parsed = parseEdits(params);
      if (lifecycleEdit(parsed)) {
        throw new Refusal("A built batch cannot create, open or close Projects");
      }
      const first = parsed[0]!.spec.name;
      if (first === "project.undo" || first === "project.redo") {
        return this.#step(engine, first === "project.undo" ? "undo" : "redo", undefined);
      }
      if (parsed.some((e) => e.spec.name === "file.import")) {
        throw new Refusal("A built batch cannot import files");
      }
      return this.#run(engine, parsed, [], undefined);
    });
  }

  /**
   * Writes a Project changed outside the editor (by an action), keeping the history valid:
   * `change` makes it, in its turn, from the Project of `projectId` as the commits before it
   * left it (its engine taken then: the same Project, even if it was reloaded meanwhile); a
   * `change` that returns null (nothing to change any more) commits nothing.
   * @returns the Project written, or null when nothing was
   * @throws {Refusal} NOT_FOUND when the Project is no longer open, or what `change` throws
   */
  commitExternal(
    projectId: string,
    change: (project: Project) => Project | null,
  ): Promise<Project | null> {
    return this.#inTurn(async () => {
      const engine = this.#host.engine(projectId);
      const next = change(engine.project);
      return next && await this.#commitExternal(engine, next);
    });
  }

  async #commitExternal(engine: ProjectEngine, next: Project): Promise<Project> {
    const project = { ...next, revision: engine.project.revision + 1 };
    const history = await this.#history(project.id, engine.project.revision);
    await this.#host.store.saveProject(project, this.#appliedKeys.get(project.id));
    await this.#saveHistory(project.id, { ...history, projectRevision: project.revision });
    engine.setProject(project);
    return project;
  }

  /**
   * Sets (or clears) the quarantine of user preset `presetId`, in its turn: the output's
   * verdict, not an edit (no history entry, no revision), reported as a preset change and
   * held at once, then written to disk. False when no such user preset exists.
   * @throws what the write throws (the quarantine holds all the same)
   */
  setQuarantine(presetId: string, quarantine: Preset["quarantine"]): Promise<boolean> {
    return this.#inTurn(async () => {
      const presets = this.#host.userPresets();
      const i = presets.findIndex((p) => p.id === presetId);
      if (i < 0) return false;
      const preset = { ...presets[i]!, quarantine };
      const after = presets.with(i, preset);
      // Held before it is written: a write that fails (a full disk) must not keep the shader
      // that stopped the output on it; it is then on disk with the next preset write.
      this.#host.setUserPresets(after);
      this.#host.emit({
        updateType: "presets",
        projectId: null,
        data: {
          event: "presets-changed",
          changed: [presetId],
          presets: [...this.#host.builtInPresets, ...after],
        },
      });
      this.#host.presetsChanged({ presets: { [presetId]: preset } });
      await this.#host.store.saveUserPresets(after);
      return true;
    });
  }

  /** Runs `work` once the commits before it have settled. */
  #inTurn<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#turn.then(work);
    this.#turn = result.catch(() => {});
    return result;
  }

  /** Applies a batch to a copy and commits it; `jobs` are its imports, already copied. */
  async #run(
    engine: ProjectEngine,
    edits: ParsedEdit[],
    jobs: readonly ImportJob[],
    key: string | undefined,
  ): Promise<EditApplyResult> {
    const before = { project: engine.project, presets: this.#host.userPresets() };
    const projectId = engine.project.id;
    const { draft, placed, imported } = this.#draft(before, jobs, projectId);
    try {
      const { outcomes, project } = await applyEach(draft, edits);
      const after = { project, presets: draft.presets };
      const forward = diffProject(before, after);
      if (!forward) {
        const { id, revision } = engine.project;
        return this.#result(id, revision, outcomes, null, await this.#history(id, revision));
      }
      const entry: HistoryEntry = {
        edits: edits.map((e) => e.spec.name),
        at: new Date().toISOString(),
        forward,
        backward: diffProject(after, before)!,
      };
      const result = await this.#commit(engine, after, forward, (h) => ({
        projectRevision: 0,
        undo: [...h.undo, entry].slice(-this.#host.historyLimit),
        redo: [],
      }), { edits: entry.edits, outcomes, key });
      for (const { job: { staged }, fileId } of placed) {
        const { jobId, name, info } = staged;
        this.#host.emit(importUpdate(projectId, {
          jobId,
          fileId,
          name,
          bytes: info.size,
          totalBytes: info.size,
          done: true,
        }));
      }
      return result;
    } catch (error) {
      for (const path of imported) await Deno.remove(path).catch(() => {});
      await failJobs(jobs, error, { projectId, emit: (u) => this.#host.emit(u) });
      throw error;
    }
  }

  /**
   * The copy a batch edits, which places its imports (`jobs`, in order) as
   * its `file.import` edits ask; what it placed, and the paths it wrote.
   */
  #draft(
    before: { project: Project; presets: Preset[] },
    jobs: readonly ImportJob[],
    projectId: string,
  ) {
    const imported: string[] = [];
    const placed: Array<{ job: ImportJob; fileId: string }> = [];
    const projectDir = this.#host.store.projectDir(projectId);
    const draft: EditDraft = {
      project: structuredClone(before.project),
      presets: structuredClone(before.presets),
      builtInPresets: this.#host.builtInPresets,
      created: {},
      importFile: async () => {
        const job = jobs[placed.length]!;
        const id = isTaken(draft.project, job.fileId)
          ? newId("file", (x) => isTaken(draft.project, x))
          : job.fileId;
        const file = await placeImport(job.staged, id);
        placed.push({ job, fileId: id });
        imported.push(`${projectDir}/${file.path}`);
        return file;
      },
    };
    return { draft, placed, imported };
  }

  async #step(
    engine: ProjectEngine,
    direction: "undo" | "redo",
    key: string | undefined,
  ): Promise<EditApplyResult> {
    const history = await this.#history(engine.project.id, engine.project.revision);
    const entry = (direction === "undo" ? history.undo : history.redo).at(-1);
    const name = `project.${direction}`;
    if (!entry) throw new Refusal(`Nothing to ${direction}`);
    const patch = direction === "undo" ? entry.backward : entry.forward;
    const after = {
      project: applyPatch(engine.project, patch),
      presets: keepQuarantines(
        this.#host.userPresets(),
        applyPresetPatch(this.#host.userPresets(), patch),
      ),
    };
    const message = `${direction === "undo" ? "Undid" : "Redid"} ${entry.edits.join(", ")}`;
    return await this.#commit(
      engine,
      after,
      patch,
      (h) =>
        direction === "undo"
          ? { projectRevision: 0, undo: h.undo.slice(0, -1), redo: [...h.redo, entry] }
          : { projectRevision: 0, undo: [...h.undo, entry], redo: h.redo.slice(0, -1) },
      { edits: [name], outcomes: [{ name, message }], key },
    );
  }

  /**
   * Writes presets and project (both or neither: `ProjectStore.saveEdit`), then
   * history, then makes them current and reports. The result is known before
   * the write, so a retry key is saved with it in the project file.
   */
  async #commit(
    engine: ProjectEngine,
    after: { project: Project; presets: Preset[] },
    patch: ProjectPatch,
    nextHistory: (h: History) => History,
    step: { edits: string[]; outcomes: EditOutcome[]; key: string | undefined },
  ): Promise<EditApplyResult> {
    if (patch.presets) this.#refuseBrokenLinks(after);
    const all = (presets: readonly Preset[]) => [...this.#host.builtInPresets, ...presets];
    refuseOverBudget(
      { project: engine.project, presets: all(this.#host.userPresets()) },
      { project: after.project, presets: all(after.presets) },
      this.#host.textureBudgetBytes,
    );
    const project = { ...after.project, revision: engine.project.revision + 1 };
    const history = await this.#history(project.id, engine.project.revision);
    const next = { ...nextHistory(history), projectRevision: project.revision };
    const result = this.#result(project.id, project.revision, step.outcomes, patch, next);
    let keys = this.#appliedKeys.get(project.id);
    if (step.key !== undefined) keys = withAppliedKey(keys ?? [], step.key, result);
    await this.#host.store.saveEdit(project, keys, patch.presets ? after.presets : undefined);
    if (keys) this.#appliedKeys.set(project.id, keys);
    // The edit is on disk now: a history that cannot be written costs undo, not the edit.
    await this.#saveHistory(project.id, next);
    engine.setProject(project);
    if (patch.presets) this.#host.setUserPresets(after.presets);
    this.#report(project, patch, step.edits);
    if (patch.presets) this.#host.presetsChanged(patch);
    const dir = this.#host.store.projectDir(project.id);
    for (const path of orphanedMedia(history, next, project)) {
      await Deno.remove(`${dir}/${path}`).catch((error) =>
        this.#host.log(`Project "${project.id}": cannot delete ${path}: ${error.message}`)
      );
    }
    return result;
  }

  /**
   * Refuses a step that would take away a preset an Effect or Visualizer
   * still links: `preset.remove` unlinks its own Project's, but a step cannot
   * change another Project (nor its undo history), so the user removes the item there first.
   * Undoing a `preset.add` and redoing a `preset.remove` are held to the same rule.
   */
  #refuseBrokenLinks(after: { project: Project; presets: Preset[] }): void {
    const known = new Set([...this.#host.builtInPresets, ...after.presets].map((p) => p.id));
    for (const open of this.#host.projects()) {
      const project = open.id === after.project.id ? after.project : open;
      const links = [
        ...project.effects.map((item) => ({ item, what: "Effect" })),
        ...project.visualizers.map((item) => ({ item, what: "Visualizer" })),
      ];
      const broken = links.find(({ item }) => item.presetId !== null && !known.has(item.presetId));
      if (broken) {
        throw new Refusal(
          `Preset "${broken.item.presetId}" is used by ${broken.what} "${broken.item.id}" of Project "${project.id}": remove that ${broken.what} first`,
        );
      }
    }
  }

  #report(project: Project, patch: ProjectPatch, edits: string[]): void {
    const { id: projectId, revision } = project;
    const emit = this.#host.emit;
    emit({
      updateType: "project",
      projectId,
      data: { event: "project-edited", revision, edits, patch },
    });
    for (const [clipID, clip] of Object.entries(patch.clips ?? {})) {
      emit({
        updateType: "clip",
        projectId,
        data: clip
          ? { event: "clip-changed", clipID, clip, revision }
          : { event: "clip-removed", clipID, revision },
      });
    }
    for (const [songID, song] of Object.entries(patch.songs ?? {})) {
      const position = project.songs.findIndex((s) => s.id === songID);
      emit({
        updateType: "song",
        projectId,
        data: song
          ? { event: "song-changed", songID, song, position, revision }
          : { event: "song-removed", songID, revision },
      });
    }
    if (patch.presets) {
      emit({
        updateType: "presets",
        projectId: null,
        data: {
          event: "presets-changed",
          changed: Object.keys(patch.presets),
          presets: [...this.#host.builtInPresets, ...this.#host.userPresets()],
        },
      });
    }
  }

  /** The answer to a batch; `history` is the Project's after it. */
  #result(
    id: string,
    revision: number,
    edits: EditOutcome[],
    patch: ProjectPatch | null,
    history: History,
  ): EditApplyResult {
    return {
      projectId: id,
      revision,
      edits,
      changed: {
        clips: Object.keys(patch?.clips ?? {}),
        songs: Object.keys(patch?.songs ?? {}),
        fields: [
          ...Object.keys(patch?.fields ?? {}),
          ...(patch?.songOrder ? ["songOrder"] : []),
        ],
        presets: Object.keys(patch?.presets ?? {}),
      },
      history: { undo: history.undo.length, redo: history.redo.length },
    };
  }

  async #history(projectId: string, revision: number): Promise<History> {
    let history = this.#histories.get(projectId);
    if (!history) {
      history = await loadHistory(
        this.#host.store.projectDir(projectId),
        revision,
        (m) => this.#host.log(`Project "${projectId}": ${m}`),
      );
      this.#histories.set(projectId, history);
    }
    return history;
  }

  async #saveHistory(projectId: string, history: History): Promise<void> {
    this.#histories.set(projectId, history);
    await saveHistory(this.#host.store.projectDir(projectId), history).catch((error) =>
      this.#host.log(`Project "${projectId}": cannot save the history: ${error.message}`)
    );
  }
}

/**
 * Runs each edit of a batch on the draft, in order; their outcomes and the
 * Project they make, checked whole.
 * @throws {Refusal} naming the edit that failed, or the Project's first problem
 */
async function applyEach(
  draft: EditDraft,
  edits: ParsedEdit[],
): Promise<{ outcomes: EditOutcome[]; project: Project }> {
  const outcomes: EditOutcome[] = [];
  for (const [index, { spec, params }] of edits.entries()) {
    draft.created = {};
    delete draft.result;
    const message = await inEdit(index, () => HANDLERS[spec.name]!(draft, params));
    const outcome: EditOutcome = { name: spec.name, message };
    if (Object.keys(draft.created).length > 0) outcome.created = draft.created;
    if (draft.result !== undefined) outcome.result = draft.result;
    outcomes.push(outcome);
  }
  const checked = Project.safeParse(draft.project);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw new Refusal(
      `The edit would make the Project invalid: ${issue.path.join(".")}: ${issue.message}`,
    );
  }
  return { outcomes, project: checked.data };
}
