/**
 * Projects and settings on disk. Layout under the data dir:
 * `projects/<id>/project.json` with `projects/<id>/media/`, `presets.json`
 * (user presets), `player.json` (active project, app state) and
 * `recordings/`. Every write goes through `writeJsonAtomic` and keeps the
 * previous versions (`lib/kept_copies.ts`); every read recovers a
 * damaged file from them (`lib/recover_file.ts`) and says so in a
 * `DataProblem`. The app keeps `live.json` there too (`live_state.ts`).
 * @module
 */
import {
  type Preset,
  Preset as PresetSchema,
  Project,
  type Project as ProjectDoc,
} from "../protocol/model.ts";
import {
  type AtomicWriteHooks,
  jsonText,
  removeStaleTemps,
  writeFilesAtomic,
  writeJsonAtomic,
} from "../lib/atomic_write.ts";
import { KEEP_GENERATIONS } from "../lib/kept_copies.ts";
import { jsonParser, oneLine, readRecovering } from "../lib/recover_file.ts";
import type { DataProblem } from "../protocol/library.ts";
import { createDemoProject } from "./demo.ts";
import { type AppliedKey, readAppliedKeys } from "./applied_keys.ts";
import { removePartials } from "./media/copy.ts";
import { z } from "zod";
import { OutputRegion } from "../protocol/region.ts";

/** Settings the player keeps between runs. */
export const PlayerSettings = z.object({
  activeProjectId: z.string().nullable().default(null),
  fullScreen: z.boolean().default(false),
  /** The output's display (`OUTPUT_DISPLAY`): a name or index; null the primary. */
  outputDisplay: z.string().nullable().default(null),
  /** The output's region of the canvas (`OUTPUT_REGION`); null (or unreadable) the whole. */
  outputRegion: OutputRegion.nullish().catch(null),
  muted: z.boolean().default(false),
  volume: z.number().min(0).max(1).default(1),
  /** The Projects closed with `project.close`: on disk and in the library, not loaded. */
  closedProjectIds: z.array(z.string()).default([]),
});
/** Settings the player keeps between runs. */
export type PlayerSettings = z.infer<typeof PlayerSettings>;

/** Result of loading every project. */
export interface LoadResult {
  projects: ProjectDoc[];
  /**
   * The damaged project files: recovered from a kept copy (`recoveredFrom` set; the
   * Project is in `projects`) or not (the Project is not loaded: listed damaged).
   */
  problems: DataProblem[];
  /** The retry keys each Project's edits were applied with (`applied_keys.ts`). */
  appliedKeys: Map<string, AppliedKey[]>;
}

/** One Project read from its folder (`ProjectStore.readProject`). */
export interface ProjectRead {
  project: ProjectDoc;
  appliedKeys: AppliedKey[];
  /** Set when `project.json` was damaged and this is its newest good kept copy. */
  problem: DataProblem | null;
}

/** A Project folder whose `project.json` is damaged with no good kept copy. */
export class DamagedProjectError extends Error {
  /** What is wrong; its `keptAs` is the file itself, left in place for the operator. */
  readonly problem: DataProblem;

  /** The error of `problem`. */
  constructor(problem: DataProblem) {
    super(`${problem.file} is damaged (${problem.problem}) and no kept copy is good`);
    this.problem = problem;
  }
}

/** A settings file read: the value (defaults when none was good) and its problem. */
export interface SettingsRead<T> {
  value: T;
  problem: DataProblem | null;
}

/** Parses a `project.json` of folder `id`: the Project and the retry keys saved with it. */
function projectParser(id: string): (text: string) => Omit<ProjectRead, "problem"> {
  const parse = jsonParser(z.unknown());
  return (text) => {
    const raw = parse(text);
    const parsed = Project.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new Error(`${issue.path.join(".") || "the file"}: ${issue.message}`);
    }
    if (parsed.data.id !== id) throw new Error(`id "${parsed.data.id}" does not match folder`);
    return { project: parsed.data, appliedKeys: readAppliedKeys(raw) };
  };
}

/** Reads and writes the player's files under one data dir. */
export class ProjectStore {
  readonly dataDir: string;
  /** Test hooks passed to every atomic write. */
  hooks: AtomicWriteHooks = {};

  /** A store rooted at `dataDir` (created when missing). */
  constructor(dataDir: string) {
    this.dataDir = dataDir;
  }

  /** Folder of one project. */
  projectDir(id: string): string {
    return `${this.dataDir}/projects/${id}`;
  }

  /** Absolute path of a project-relative file path. */
  filePath(projectId: string, relative: string): string {
    return `${this.projectDir(projectId)}/${relative}`;
  }

  /**
   * Loads every project; creates the demo project on the very first start (no `projects/`
   * folder yet), not whenever none is left (an operator may have deleted them all).
   */
  async loadProjects(): Promise<LoadResult> {
    const root = `${this.dataDir}/projects`;
    if (await Deno.stat(root).then(() => false, () => true)) await this.#placeDemo();
    const projects: ProjectDoc[] = [];
    const problems: DataProblem[] = [];
    const appliedKeys = new Map<string, AppliedKey[]>();
    for await (const entry of Deno.readDir(root)) {
      if (!entry.isDirectory || entry.name.startsWith(".")) continue; // staging: `library/folders.ts`
      const dir = `${root}/${entry.name}`;
      await removeStaleTemps(dir);
      try {
        const read = await this.readProject(entry.name);
        projects.push(read.project);
        appliedKeys.set(read.project.id, read.appliedKeys);
        if (read.problem) problems.push(read.problem);
      } catch (error) {
        problems.push(this.#unreadable(entry.name, error));
      }
    }
    projects.sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
    return { projects, problems, appliedKeys };
  }

  /**
   * Builds `projects/` with the demo in it beside the data dir's files and renames it into
   * place at once: a start killed meanwhile is a first start again, never one with half a demo.
   */
  async #placeDemo(): Promise<void> {
    const staging = `${this.dataDir}/.new-projects`;
    await Deno.remove(staging, { recursive: true }).catch(() => {});
    const demo = await createDemoProject(`${staging}/demo`);
    await writeJsonAtomic(`${staging}/demo/project.json`, demo, this.hooks);
    await Deno.rename(staging, `${this.dataDir}/projects`);
  }

  /**
   * Reads the Project of folder `projects/<id>`, checked against the model; a
   * damaged `project.json` is served from its newest good kept copy (`problem` says so).
   * @throws {DamagedProjectError} when it is damaged and no kept copy is good (the file stays)
   * @throws {Error} when `project.json` is missing or cannot be read
   */
  async readProject(id: string): Promise<ProjectRead> {
    const path = `${this.projectDir(id)}/project.json`;
    const read = await readRecovering(path, {
      dataDir: this.dataDir,
      parse: projectParser(id),
      projectId: id,
      isLeftInPlace: true,
    });
    if (read.value) return { ...read.value, problem: read.problem };
    if (read.problem) throw new DamagedProjectError(read.problem);
    throw new Error(`projects/${id}/project.json is missing`);
  }

  /** The problem of a Project folder that could not be read at all. */
  #unreadable(id: string, error: unknown): DataProblem {
    if (error instanceof DamagedProjectError) return error.problem;
    return {
      file: `projects/${id}/project.json`,
      problem: oneLine((error as Error).message),
      recoveredFrom: null,
      keptAs: null,
      projectId: id,
      at: new Date().toISOString(),
    };
  }

  /**
   * Removes the partial copies of imports in every project's `media/`: call
   * at start only, when no import can be running. (`PlayerApp.open` removes
   * the data dir's temp files; a project's are removed when it loads.)
   */
  async removePartialImports(): Promise<number> {
    let removed = 0;
    try {
      for await (const entry of Deno.readDir(`${this.dataDir}/projects`)) {
        if (entry.isDirectory) {
          removed += await removePartials(`${this.projectDir(entry.name)}/media`);
        }
      }
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    return removed;
  }

  /** Writes a project document atomically, with the retry keys of its edits in the same file. */
  saveProject(project: ProjectDoc, appliedKeys?: readonly AppliedKey[]): Promise<void> {
    return this.saveEdit(project, appliedKeys);
  }

  /**
   * Writes an edit's project document and, when the edit changed them, the
   * user presets: both temp files first, then both renames, so a full disk
   * changes neither file (`writeFilesAtomic`).
   */
  saveEdit(
    project: ProjectDoc,
    appliedKeys: readonly AppliedKey[] | undefined,
    presets?: Preset[],
  ): Promise<void> {
    const doc = appliedKeys?.length ? { ...project, appliedKeys } : project;
    const files = [{ path: `${this.projectDir(project.id)}/project.json`, data: jsonText(doc) }];
    if (presets) files.unshift({ path: `${this.dataDir}/presets.json`, data: jsonText(presets) });
    return writeFilesAtomic(files, this.#keeping());
  }

  /** The hooks of a write that keeps the previous versions. */
  #keeping(): AtomicWriteHooks {
    return { ...this.hooks, keep: KEEP_GENERATIONS };
  }

  /**
   * The player's saved settings (`player.json`): defaults where missing; a damaged file
   * is served from its newest good kept copy, or the defaults (the file moved aside).
   */
  async loadSettings(): Promise<SettingsRead<PlayerSettings>> {
    const read = await readRecovering(`${this.dataDir}/player.json`, {
      dataDir: this.dataDir,
      parse: jsonParser(PlayerSettings),
    });
    return { value: read.value ?? PlayerSettings.parse({}), problem: read.problem };
  }

  /** Saves the player's settings. */
  saveSettings(settings: PlayerSettings): Promise<void> {
    return writeJsonAtomic(`${this.dataDir}/player.json`, settings, this.#keeping());
  }

  /**
   * User presets (built-ins are not stored): none where missing; a damaged `presets.json`
   * is served from its newest good kept copy, or none (the file moved aside, never
   * overwritten by the next preset write).
   */
  async loadUserPresets(): Promise<SettingsRead<Preset[]>> {
    const read = await readRecovering(`${this.dataDir}/presets.json`, {
      dataDir: this.dataDir,
      parse: jsonParser(z.array(PresetSchema)),
    });
    return { value: read.value ?? [], problem: read.problem };
  }

  /** Saves user presets. */
  saveUserPresets(presets: Preset[]): Promise<void> {
    return writeJsonAtomic(`${this.dataDir}/presets.json`, presets, this.#keeping());
  }
}
