/**
 * Projects and settings on disk. Layout under the data dir:
 * `projects/<id>/project.json` with `projects/<id>/media/`, `presets.json`
 * (user presets), `player.json` (active project, app state) and
 * `recordings/`. Every write goes through `writeJsonAtomic`. The app keeps
 * `live.json` there too (`live_state.ts`).
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
} from "../protocol/atomic_write.ts";
import { createDemoProject } from "./demo.ts";
import { type AppliedKey, readAppliedKeys } from "./edits/applied_keys.ts";
import { removePartials } from "./media/copy.ts";
import { z } from "zod";

/** Settings the player keeps between runs. */
export const PlayerSettings = z.object({
  activeProjectId: z.string().nullable().default(null),
  fullScreen: z.boolean().default(false),
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
  /** One line per project folder that could not be loaded. */
  problems: string[];
  /** The retry keys each Project's edits were applied with (`edits/applied_keys.ts`). */
  appliedKeys: Map<string, AppliedKey[]>;
}

async function readJson(path: string): Promise<unknown | undefined> {
  try {
    return JSON.parse(await Deno.readTextFile(path));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
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
    const problems: string[] = [];
    const appliedKeys = new Map<string, AppliedKey[]>();
    for await (const entry of Deno.readDir(root)) {
      if (!entry.isDirectory || entry.name.startsWith(".")) continue; // staging: `library/folders.ts`
      const dir = `${root}/${entry.name}`;
      await removeStaleTemps(dir);
      try {
        const read = await this.readProject(entry.name);
        projects.push(read.project);
        appliedKeys.set(read.project.id, read.appliedKeys);
      } catch (error) {
        problems.push(`Cannot load project "${entry.name}": ${(error as Error).message}`);
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
   * Reads the Project of folder `projects/<id>`, checked against the model.
   * @throws {Error} naming what is wrong (missing, not JSON, not a Project, another id)
   */
  async readProject(id: string): Promise<{ project: ProjectDoc; appliedKeys: AppliedKey[] }> {
    const raw = await readJson(`${this.projectDir(id)}/project.json`);
    if (raw === undefined) throw new Error("project.json is missing");
    const project = Project.parse(raw);
    if (project.id !== id) throw new Error(`id "${project.id}" does not match folder`);
    return { project, appliedKeys: readAppliedKeys(raw) };
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
    return writeFilesAtomic(files, this.hooks);
  }

  /** The player's saved settings, defaults where missing or unreadable. */
  async loadSettings(): Promise<PlayerSettings> {
    const parsed = PlayerSettings.safeParse((await readJson(`${this.dataDir}/player.json`)) ?? {});
    return parsed.success ? parsed.data : PlayerSettings.parse({});
  }

  /** Saves the player's settings. */
  saveSettings(settings: PlayerSettings): Promise<void> {
    return writeJsonAtomic(`${this.dataDir}/player.json`, settings, this.hooks);
  }

  /** User presets (built-ins are not stored). */
  async loadUserPresets(): Promise<Preset[]> {
    const raw = await readJson(`${this.dataDir}/presets.json`);
    const parsed = z.array(PresetSchema).safeParse(raw ?? []);
    return parsed.success ? parsed.data : [];
  }

  /** Saves user presets. */
  saveUserPresets(presets: Preset[]): Promise<void> {
    return writeJsonAtomic(`${this.dataDir}/presets.json`, presets, this.hooks);
  }
}
