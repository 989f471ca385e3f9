/**
 * The player's editor: validates a batch of edits against the catalog,
 * applies it to a private copy, and commits it as one undoable step (all or
 * nothing). Every commit is on disk (presets, project, then history) before
 * it is reported; updates follow the write. A batch that imports files first
 * copies them beside other requests (`import_batches.ts`, `Beside`), then
 * commits like any other. Its parts: the turns commits take (`turns.ts`), the
 * retry keys (`retry_keys.ts`), the undo histories (`histories.ts`), the apply
 * and commit of each kind of step (`committer.ts`, `apply_each.ts`).
 * @module
 */
import type { EditApplyParams, EditApplyResult } from "../../protocol/edits/mod.ts";
import type { Preset, Project } from "../../protocol/model.ts";
import type { AppliedKey } from "../applied_keys.ts";
import { Beside } from "../beside.ts";
import type { ProjectEngine } from "../engine/project_engine.ts";
import { Refusal } from "../errors.ts";
import { lifecycleEdit } from "./apply_each.ts";
import { Committer } from "./committer.ts";
import { withIdSeed } from "./draft.ts";
import type { EditOptions, EditorHost } from "./editor_host.ts";
import { Histories } from "./histories.ts";
import { ImportBatches } from "./import_batches.ts";
import { type ParsedEdit, parseEdits } from "./parse.ts";
import { checkIsfCodeBeside } from "./preset_rules.ts";
import { RetryKeys } from "./retry_keys.ts";
import { Turns } from "./turns.ts";

export type { EditOptions, EditorHost } from "./editor_host.ts";

/** The undo or redo a batch is, or null when it is neither. */
function historyStep(parsed: readonly ParsedEdit[]): "undo" | "redo" | null {
  const first = parsed[0]!.spec.name;
  return first === "project.undo" ? "undo" : first === "project.redo" ? "redo" : null;
}

/** Applies edits, undo and redo. */
export class Editor {
  #host: EditorHost;
  #keys = new RetryKeys();
  #turns = new Turns(this.#keys);
  #histories: Histories;
  #committer: Committer;
  #imports: ImportBatches;

  /** Builds the editor over `host`. */
  constructor(host: EditorHost) {
    this.#host = host;
    this.#histories = new Histories({
      projectDir: (id) => host.store.projectDir(id),
      log: (message) => host.log(message),
    });
    this.#committer = new Committer(host, { histories: this.#histories, keys: this.#keys });
    this.#imports = new ImportBatches(host, {
      turns: this.#turns,
      keys: this.#keys,
      committer: this.#committer,
    });
  }

  /** Forgets loaded histories (after a reload from disk). */
  reset(): void {
    this.#histories.reset();
  }

  /** The retry keys loaded with the Projects (`ProjectStore.loadProjects`). */
  setAppliedKeys(keys: Map<string, AppliedKey[]>): void {
    this.#keys.setAll(keys);
  }

  /** The retry keys of a Project opened after start (`PlayerApp.adoptProject`); its history is read when first used. */
  addAppliedKeys(projectId: string, keys: AppliedKey[]): void {
    this.#keys.set(projectId, keys);
    this.#histories.forget(projectId);
  }

  /** Forgets a Project that went (closed, deleted or replaced): its history and retry keys. */
  forget(projectId: string): void {
    this.#keys.forget(projectId);
    this.#histories.forget(projectId);
  }

  /** How many files batches are importing into Project `projectId` (copying, or waiting to commit). */
  importsInto(projectId: string): number {
    return this.#imports.into(projectId);
  }

  /** Undo and redo depths of a Project. */
  async depth(projectId: string, revision: number): Promise<{ undo: number; redo: number }> {
    const h = await this.#histories.get(projectId, revision);
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
    if (lifecycle) return this.#turns.run(() => this.#host.lifecycle(lifecycle, params.projectId));
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
    const again = key === undefined ? null : this.#keys.again(engine.project.id, key);
    if (again) return again;
    if (parsed.some((e) => e.spec.name === "file.import")) {
      return this.#imports.start(engine, { params, parsed, options });
    }
    const projectId = engine.project.id;
    const step = historyStep(parsed);
    const commit = (target: ProjectEngine) =>
      step ? this.#committer.step(target, step, key) : this.#committer.run(target, parsed, [], key);
    const checks = checkIsfCodeBeside(parsed, this.#host.userPresets());
    const seeded = (target: ProjectEngine) => withIdSeed(params.seed, () => commit(target));
    if (!checks && !this.#turns.hasBesides) return this.#turns.run(() => seeded(engine));
    return this.#turns.afterChecks(checks, key, () => seeded(this.#host.engine(projectId)));
  }

  /**
   * Runs the batch `build` makes when its turn comes: built from the Project and presets as
   * every commit before it left them (a control moved in the editor page changes the preset
   * as it is then, not as the page last saw it). Undo and redo as `apply`; no imports.
   * @throws {Refusal} as `apply`, or what `build` throws
   */
  applyBuilt(build: () => EditApplyParams): Promise<EditApplyResult> {
    return this.#turns.run(() => {
      const params = build();
      const engine = this.#host.engine(params.projectId);
      const parsed = parseEdits(params);
      if (lifecycleEdit(parsed)) {
        throw new Refusal("A built batch cannot create, open or close Projects");
      }
      const step = historyStep(parsed);
      if (step) return this.#committer.step(engine, step, undefined);
      if (parsed.some((e) => e.spec.name === "file.import")) {
        throw new Refusal("A built batch cannot import files");
      }
      return this.#committer.run(engine, parsed, [], undefined);
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
    return this.#turns.run(async () => {
      const engine = this.#host.engine(projectId);
      const next = change(engine.project);
      return next && await this.#committer.external(engine, next);
    });
  }

  /**
   * Sets (or clears) the quarantine of user preset `presetId`, in its turn: the output's
   * verdict, not an edit (no history entry, no revision), reported as a preset change and
   * held at once, then written to disk. False when no such user preset exists.
   * @throws what the write throws (the quarantine holds all the same)
   */
  setQuarantine(presetId: string, quarantine: Preset["quarantine"]): Promise<boolean> {
    return this.#turns.run(async () => {
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
}
