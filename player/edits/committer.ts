/**
 * The apply of each kind of step, in its turn (the caller's): a batch of
 * edits run on a private copy, an undo or a redo, or a Project changed
 * outside the editor; then its commit, all or nothing. Every commit is on
 * disk (presets and project, then history) before it is made current and
 * reported.
 * @module
 */
import type { EditApplyResult, EditOutcome } from "../../protocol/edits/mod.ts";
import type { Preset, Project } from "../../protocol/model.ts";
import {
  applyPatch,
  applyPresetPatch,
  diffProject,
  type ProjectPatch,
} from "../../protocol/patch.ts";
import type { ProjectEngine } from "../engine/project_engine.ts";
import { Refusal } from "../errors.ts";
import { refuseOverBudget } from "../output/texture_budget.ts";
import { applyEach } from "./apply_each.ts";
import { batchResult, reportCommit } from "./commit_report.ts";
import { type EditDraft, isTaken, newId } from "./draft.ts";
import type { EditorHost } from "./editor_host.ts";
import { placeImport } from "./file_import.ts";
import { storePresetImage } from "../output/imported_images.ts";
import type { Histories } from "./histories.ts";
import type { History, HistoryEntry } from "./history.ts";
import { failJobs, type ImportJob, importUpdate } from "./import_jobs.ts";
import { orphanedMedia } from "./orphans.ts";
import type { ParsedEdit } from "./parse.ts";
import { keepQuarantines, withQuarantinesOf } from "./preset_quarantine.ts";
import { refuseBrokenLinks } from "./preset_links.ts";
import type { RetryKeys } from "./retry_keys.ts";

/** A Project and the user presets, before or after a step. */
type State = { project: Project; presets: Preset[] };

/** What a step commits beside its state: its edits, their outcomes and its retry key. */
type Step = { edits: string[]; outcomes: EditOutcome[]; key: string | undefined };

/** Applies and commits steps; the caller gives each its turn. */
export class Committer {
  #host: EditorHost;
  #histories: Histories;
  #keys: RetryKeys;

  /** Commits over `host`, keeping `histories` and `keys`. */
  constructor(host: EditorHost, parts: { histories: Histories; keys: RetryKeys }) {
    this.#host = host;
    this.#histories = parts.histories;
    this.#keys = parts.keys;
  }

  /** Applies a batch to a copy and commits it; `jobs` are its imports, already copied. */
  async run(
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
        const history = await this.#histories.get(id, revision);
        return batchResult({ id, revision }, outcomes, null, history);
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
        const bytes = info.size;
        this.#host.emit(
          importUpdate(projectId, { jobId, fileId, name, bytes, totalBytes: bytes, done: true }),
        );
      }
      return result;
    } catch (error) {
      for (const path of imported) await Deno.remove(path).catch(() => {});
      await failJobs(jobs, error, { projectId, emit: (u) => this.#host.emit(u) });
      throw error;
    }
  }

  /** Undoes or redoes the last step of the Project's history. @throws {Refusal} when there is none */
  async step(
    engine: ProjectEngine,
    direction: "undo" | "redo",
    key: string | undefined,
  ): Promise<EditApplyResult> {
    const history = await this.#histories.get(engine.project.id, engine.project.revision);
    const entry = (direction === "undo" ? history.undo : history.redo).at(-1);
    const name = `project.${direction}`;
    if (!entry) throw new Refusal(`Nothing to ${direction}`);
    const patch = direction === "undo" ? entry.backward : entry.forward;
    const presets = this.#host.userPresets();
    const after = {
      project: applyPatch(engine.project, patch),
      presets: keepQuarantines(presets, applyPresetPatch(presets, patch)),
    };
    const message = `${direction === "undo" ? "Undid" : "Redid"} ${entry.edits.join(", ")}`;
    // The way back keeps the quarantines of now: the shader that stalled stays off the output.
    const undone = { ...entry, forward: withQuarantinesOf(presets, entry.forward) };
    const redone = { ...entry, backward: withQuarantinesOf(presets, entry.backward) };
    return await this.#commit(
      engine,
      after,
      patch,
      (h) =>
        direction === "undo"
          ? { projectRevision: 0, undo: h.undo.slice(0, -1), redo: [...h.redo, undone] }
          : { projectRevision: 0, undo: [...h.undo, redone], redo: h.redo.slice(0, -1) },
      { edits: [name], outcomes: [{ name, message }], key },
    );
  }

  /** Writes `next`, a Project changed outside the editor, keeping its history valid. */
  async external(engine: ProjectEngine, next: Project): Promise<Project> {
    const project = { ...next, revision: engine.project.revision + 1 };
    const history = await this.#histories.get(project.id, engine.project.revision);
    await this.#host.store.saveProject(project, this.#keys.of(project.id));
    await this.#histories.save(project.id, { ...history, projectRevision: project.revision });
    engine.setProject(project);
    return project;
  }

  /**
   * Writes presets and project (both or neither: `ProjectStore.saveEdit`), then
   * history, then makes them current and reports. The result is known before
   * the write, so a retry key is saved with it in the project file.
   */
  async #commit(
    engine: ProjectEngine,
    after: State,
    patch: ProjectPatch,
    nextHistory: (h: History) => History,
    step: Step,
  ): Promise<EditApplyResult> {
    const host = this.#host;
    if (patch.presets) refuseBrokenLinks(after, host);
    const all = (presets: readonly Preset[]) => [...host.builtInPresets, ...presets];
    refuseOverBudget(
      { project: engine.project, presets: all(host.userPresets()) },
      { project: after.project, presets: all(after.presets) },
      host.textureBudgetBytes,
    );
    const project = { ...after.project, revision: engine.project.revision + 1 };
    const history = await this.#histories.get(project.id, engine.project.revision);
    const next = { ...nextHistory(history), projectRevision: project.revision };
    const result = batchResult(project, step.outcomes, patch, next);
    const keys = this.#keys.with(project.id, step.key, result);
    await host.store.saveEdit(project, keys, patch.presets ? after.presets : undefined);
    if (keys) this.#keys.set(project.id, keys);
    // The edit is on disk now: a history that cannot be written costs undo, not the edit.
    await this.#histories.save(project.id, next);
    engine.setProject(project);
    if (patch.presets) host.setUserPresets(after.presets);
    reportCommit(
      (u) => host.emit(u),
      { project, patch, edits: step.edits },
      () => all(host.userPresets()),
    );
    if (patch.presets) host.presetsChanged(patch);
    await this.#removeOrphans(project, history, next);
    return result;
  }

  /** Deletes the media no history step or the Project uses any more. */
  async #removeOrphans(project: Project, before: History, after: History): Promise<void> {
    const dir = this.#host.store.projectDir(project.id);
    for (const path of orphanedMedia(before, after, project)) {
      await Deno.remove(`${dir}/${path}`).catch((error) =>
        this.#host.log(`Project "${project.id}": cannot delete ${path}: ${error.message}`)
      );
    }
  }

  /**
   * The copy a batch edits, which places its imports (`jobs`, in order) as
   * its `file.import` edits ask; what it placed, and the paths it wrote.
   */
  #draft(before: State, jobs: readonly ImportJob[], projectId: string) {
    const imported: string[] = [];
    const placed: Array<{ job: ImportJob; fileId: string }> = [];
    const projectDir = this.#host.store.projectDir(projectId);
    const draft: EditDraft = {
      project: structuredClone(before.project),
      presets: structuredClone(before.presets),
      builtInPresets: this.#host.builtInPresets,
      created: {},
      ...(this.#host.cameras ? { cameras: this.#host.cameras() } : {}),
      storeImage: (image, bytes, field) =>
        storePresetImage(this.#host.store.dataDir, image, bytes, field),
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
}
