/**
 * The lifecycle of the library's Projects, as edits (`protocol/edits/project.ts`): create,
 * duplicate, delete, restore, open and close. Each runs alone, in the editor's turn, and is
 * recorded in no Project's history. A new folder is built under `projects/.new-<uuid>/` and
 * put in place with one rename; a deleted one moves to `trash/<id>.<ms>/` with one rename, so
 * a kill at any point leaves the old state or the new one (`folders.ts`).
 * @module
 */
import type { EditApplyResult } from "../../protocol/edits/mod.ts";
import { notOpenHint } from "../../protocol/edits/project.ts";
import { RpcErrorCode } from "../../protocol/jsonrpc.ts";
import type { LibraryEntry } from "../../protocol/library.ts";
import { Project } from "../../protocol/model.ts";
import { stopAll } from "../actions/playback.ts";
import { createDemoProject } from "../demo.ts";
import type { ProjectEngine } from "../engine/project_engine.ts";
import { damagedRefusal } from "../damage.ts";
import { importingRefusal, Refusal } from "../errors.ts";
import { ensureControls } from "../project_defaults.ts";
import { DamagedProjectError, type ProjectStore } from "../store.ts";
import { dropStaging, linkMedia, listTrash, makeStaging, writeProjectIn } from "./folders.ts";
import { freeId, projectSlug } from "./ids.ts";

/** What the lifecycle needs from the application (`PlayerApp`). */
export interface LifecycleHost {
  readonly store: ProjectStore;
  /** The open Project of `id` (null: the active one). @throws {Refusal} NOT_FOUND */
  engine(id: string | null): ProjectEngine;
  library(): LibraryEntry[];
  /** `PlayerApp.adoptProject`. */
  adopt(id: string, reason: "created" | "duplicated" | "restored" | "opened"): Promise<Project>;
  /** `PlayerApp.removeProject`. */
  remove(id: string, reason: "closed" | "deleted"): void;
  /** Lists a closed or damaged Project as deleted (its folder is in the trash) and tells every client. */
  deleteNotOpen(id: string): void;
  /** How many files imports are copying into Project `id` (`Editor.importsInto`). */
  importing(id: string): number;
  /** Drops the library's entry of a Project that is not open (a deleted one restored elsewhere). */
  forget(id: string): void;
  /** Resolves once the settings (which Projects are closed) are on disk. */
  settingsSaved(): Promise<void>;
  /** Undo and redo depths of an open Project. */
  depth(id: string, revision: number): Promise<{ undo: number; redo: number }>;
}

/** A deleted Project in the trash. */
export interface TrashItem {
  id: string;
  dir: string;
}

/** Runs the lifecycle edits. */
export class Lifecycle {
  #host: LifecycleHost;
  /** Deleted Projects, oldest first; the folder is emptied at the service's next start. */
  #trash: TrashItem[] = [];

  /** The lifecycle over `host`. */
  constructor(host: LifecycleHost) {
    this.#host = host;
  }

  /**
   * Runs one lifecycle edit; `projectId` is the batch's (null: none named).
   * @throws {Refusal} naming what to change
   */
  run(
    name: string,
    params: Record<string, unknown>,
    projectId: string | null,
  ): Promise<EditApplyResult> {
    switch (name) {
      case "project.create":
        return this.#create(params as { name: string; template: "empty" | "demo" });
      case "project.duplicate":
        return this.#duplicate(projectId, params.name as string | undefined);
      case "project.delete":
        return this.#delete(named(name, projectId), params.force === true);
      case "project.restore":
        return this.#restore(params.projectID as string);
      case "project.open":
        return this.#open(params.projectID as string);
      case "project.close":
        return this.#close(named(name, projectId));
    }
    return Promise.reject(new Refusal(`Edit "${name}" is no lifecycle edit`));
  }

  async #create(
    p: { name: string; template: "empty" | "demo"; projectID?: string },
  ): Promise<EditApplyResult> {
    if (p.projectID !== undefined) await this.#refuseTaken(p.projectID);
    const id = p.projectID ?? await freeId(projectSlug(p.name), (x) => this.#isTaken(x));
    await this.#build(id, async (staging) => {
      const content = p.template === "demo"
        ? await createDemoProject(staging)
        : Project.parse({ id, name: p.name });
      await writeProjectIn(staging, ensureControls({ ...content, id, name: p.name, revision: 0 }));
    });
    await this.#host.adopt(id, "created");
    const from = p.template === "demo" ? "from the demo" : "empty";
    return await this.#answer("project.create", id, `Project "${id}" created (${from})`, true);
  }

  async #duplicate(projectId: string | null, name: string | undefined): Promise<EditApplyResult> {
    const source = this.#host.engine(projectId).project;
    const copyName = name ?? `${source.name} (copy)`;
    const id = await freeId(projectSlug(copyName), (x) => this.#isTaken(x));
    let missing: string[] = [];
    await this.#build(id, async (staging) => {
      const from = this.#host.store.projectDir(source.id);
      missing = await linkMedia(from, staging, source.files.map((f) => f.path));
      await writeProjectIn(staging, {
        ...structuredClone(source),
        id,
        name: copyName,
        revision: 0,
      });
    });
    await this.#host.adopt(id, "duplicated");
    const note = missing.length ? `; missing from disk, not copied: ${missing.join(", ")}` : "";
    const message = `Project "${source.id}" duplicated as "${id}"${note}`;
    return await this.#answer("project.duplicate", id, message, true);
  }

  async #delete(id: string, isForced: boolean): Promise<EditApplyResult> {
    const state = this.#stateOf(id);
    if (state === "closed" || state === "damaged") {
      await this.#toTrash(id, this.#host.store.projectDir(id));
      this.#host.deleteNotOpen(id);
    } else {
      const engine = this.#openEngine(id, "project.delete");
      const isBusy = engine.isPlaying() || engine.isPaused();
      if (isBusy && !isForced) {
        throw new Refusal(
          `Project "${id}" is playing: stop it first, or send project.delete with "force": true`,
        );
      }
      if (isBusy) stopAll(engine);
      await this.#toTrash(id, this.#host.store.projectDir(id));
      this.#host.remove(id, "deleted");
    }
    await this.#host.settingsSaved();
    const message = `Project "${id}" deleted: project.restore {"projectID": "${id}"} brings it ` +
      "back until the service restarts (the trash is emptied at each start of the service)";
    return this.#gone("project.delete", id, message);
  }

  /** The state of Project `id` in the library, or undefined when it has none. */
  #stateOf(id: string): LibraryEntry["state"] | undefined {
    return this.#host.library().find((e) => e.projectId === id)?.state;
  }

  /** The engine of open Project `id`, refused while imports copy into it. */
  #openEngine(id: string, name: string): ProjectEngine {
    const engine = this.#host.engine(id);
    const files = this.#host.importing(id);
    if (files > 0) throw importingRefusal(id, files, name);
    return engine;
  }

  async #restore(id: string): Promise<EditApplyResult> {
    const index = this.#trash.findLastIndex((t) => t.id === id);
    if (index < 0) {
      throw new Refusal(
        `No deleted Project "${id}" is in the trash (it is emptied at each start of the service)`,
        RpcErrorCode.NOT_FOUND,
        { field: "projectID" },
      );
    }
    const { dir } = this.#trash[index]!;
    const target = await freeId(id, (x) => this.#isTaken(x, { except: id }));
    if (target === id) await Deno.rename(dir, this.#host.store.projectDir(id));
    else await this.#build(target, (staging) => renamed(dir, staging, target));
    this.#trash.splice(index, 1);
    if (!this.#trash.some((t) => t.id === id)) this.#host.forget(id);
    try {
      await this.#host.adopt(target, "restored");
    } catch (error) {
      // A damaged Project deleted comes back as it went: listed damaged, for the operator.
      if (!(error instanceof DamagedProjectError)) throw error;
      const { file, problem } = error.problem;
      const why = `${file}: ${problem}`;
      const message = `Project "${target}" restored, still damaged (${why}): repair or ` +
        "replace the file, then open it (project.open)";
      return this.#gone("project.restore", target, message);
    }
    const message = target === id
      ? `Project "${id}" restored`
      : `Project "${id}" restored as "${target}" (its id was taken meanwhile)`;
    return await this.#answer("project.restore", target, message, false);
  }

  async #open(id: string): Promise<EditApplyResult> {
    const entry = this.#host.library().find((e) => e.projectId === id);
    if (entry?.state !== "closed" && entry?.state !== "damaged") {
      const why = entry?.state === "open"
        ? `Project "${id}" is open already`
        : notOpenHint(id, entry?.state) ?? `Project "${id}" does not exist`;
      throw new Refusal(why, entry ? RpcErrorCode.ACTION_REFUSED : RpcErrorCode.NOT_FOUND, {
        field: "projectID",
      });
    }
    try {
      await this.#host.adopt(id, "opened");
    } catch (error) {
      // Still damaged: it stays listed so, and the refusal names the file and the problem.
      if (error instanceof DamagedProjectError) {
        throw damagedRefusal({ ...entry, problem: error.problem });
      }
      throw error;
    }
    await this.#host.settingsSaved();
    return await this.#answer("project.open", id, `Project "${id}" opened`, false);
  }

  async #close(id: string): Promise<EditApplyResult> {
    if (this.#stateOf(id) === "closed") {
      return this.#gone("project.close", id, `Project "${id}" is closed already`);
    }
    this.#openEngine(id, "project.close");
    this.#host.remove(id, "closed");
    await this.#host.settingsSaved();
    return this.#gone("project.close", id, `Project "${id}" closed: project.open opens it again`);
  }

  /** Builds a Project folder in staging and renames it into `projects/<id>`, or leaves nothing. */
  async #build(id: string, fill: (staging: string) => Promise<void>): Promise<void> {
    const staging = await makeStaging(this.#host.store.dataDir);
    try {
      await fill(staging);
      await Deno.rename(staging, this.#host.store.projectDir(id));
    } catch (error) {
      await dropStaging(staging);
      throw error;
    }
  }

  /**
   * Puts the folder of Project `id` (already out of play) in the trash, as a delete does, so
   * `project.restore` brings it back until the next start: an import's `replace`.
   */
  async keepInTrash(id: string, folder: string): Promise<void> {
    await this.#toTrash(id, folder);
  }

  /**
   * Reads the trash a restarted player finds (`tidyDataDir` left what this service run
   * deleted): the folders `project.restore` can bring back, newest last.
   */
  async loadTrash(): Promise<readonly TrashItem[]> {
    this.#trash = (await listTrash(this.#host.store.dataDir)).map(({ id, dir }) => ({ id, dir }));
    return this.#trash;
  }

  /** Moves `folder` (Project `id`'s) into the trash with one rename. */
  async #toTrash(id: string, folder: string): Promise<void> {
    const dir = await this.#trashDir(id);
    await Deno.rename(folder, dir);
    this.#trash.push({ id, dir });
  }

  async #trashDir(id: string): Promise<string> {
    const root = `${this.#host.store.dataDir}/trash`;
    await Deno.mkdir(root, { recursive: true });
    // Named with the time of the delete: the service's next start empties what is older.
    for (let ms = Date.now();; ms++) {
      const dir = `${root}/${id}.${ms}`;
      if (!(await exists(dir))) return dir;
    }
  }

  /** Whether an id is used: by a Project of the library, in the trash, or by a folder. */
  async #isTaken(id: string, options: { except?: string } = {}): Promise<boolean> {
    const inLibrary = this.#host.library().some((e) =>
      e.projectId === id && !(e.state === "deleted" && e.projectId === options.except)
    );
    const inTrash = id !== options.except && this.#trash.some((t) => t.id === id);
    return inLibrary || inTrash || await exists(this.#host.store.projectDir(id));
  }

  async #refuseTaken(id: string): Promise<void> {
    if (!(await this.#isTaken(id))) return;
    const state = this.#host.library().find((e) => e.projectId === id)?.state ?? "deleted";
    throw new Refusal(
      `Invalid params.projectID: "${id}" is taken (a Project ${state} has it): choose another, or omit projectID to have one made from the name`,
      RpcErrorCode.INVALID_PARAMS,
      { field: "projectID" },
    );
  }

  async #answer(
    name: string,
    id: string,
    message: string,
    isCreated: boolean,
  ): Promise<EditApplyResult> {
    const { revision } = this.#host.engine(id).project;
    const history = await this.#host.depth(id, revision);
    const outcome = { name, message, ...(isCreated ? { created: { projectId: id } } : {}) };
    return { projectId: id, revision, edits: [outcome], changed: nothingChanged(), history };
  }

  #gone(name: string, id: string, message: string): EditApplyResult {
    const history = { undo: 0, redo: 0 };
    return {
      projectId: id,
      revision: 0,
      edits: [{ name, message }],
      changed: nothingChanged(),
      history,
    };
  }
}

function nothingChanged(): EditApplyResult["changed"] {
  return { clips: [], songs: [], fields: [], presets: [] };
}

/** The batch's Project, which `name` needs named. */
function named(name: string, projectId: string | null): string {
  if (projectId !== null) return projectId;
  throw new Refusal(
    `${name} needs the Project named: give projectID in the body (not the active one by default)`,
    RpcErrorCode.INVALID_PARAMS,
    { field: "projectID" },
  );
}

/** Moves a trashed folder to staging and gives its Project the id `id`; back to the trash on failure. */
async function renamed(dir: string, staging: string, id: string): Promise<void> {
  await Deno.remove(staging);
  await Deno.rename(dir, staging);
  try {
    const raw = JSON.parse(await Deno.readTextFile(`${staging}/project.json`));
    await writeProjectIn(staging, { ...raw, id }, raw);
  } catch (error) {
    await Deno.rename(staging, dir);
    throw error;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}
