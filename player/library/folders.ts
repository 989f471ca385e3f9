/**
 * The folders of the library's lifecycle on disk: a new Project is built under
 * `projects/.new-<uuid>/` and renamed into place (a kill leaves no partial Project: the stale
 * staging is removed at the next start); a deleted one waits in `trash/<id>.<ms>/` (`ms`: when
 * it was deleted, ms since the epoch) until the service's next start (`cleanLibraryFolders`).
 * @module
 */
import { jsonText, writeFileAtomic } from "../../lib/atomic_write.ts";
import type { Project } from "../../protocol/model.ts";

/** A fresh staging folder under `projects/` (its name cannot be a Project id: ids have no dot). */
export async function makeStaging(dataDir: string): Promise<string> {
  const dir = `${dataDir}/projects/.new-${crypto.randomUUID()}`;
  await Deno.mkdir(dir, { recursive: true });
  return dir;
}

/** Removes a staging folder after a failure; never throws. */
export async function dropStaging(dir: string): Promise<void> {
  await Deno.remove(dir, { recursive: true }).catch(() => {});
}

/** Writes a Project's `project.json` (with any extra fields of `raw`) into `dir`. */
export async function writeProjectIn(
  dir: string,
  project: Project,
  raw: Record<string, unknown> = {},
): Promise<void> {
  await writeFileAtomic(`${dir}/project.json`, jsonText({ ...raw, ...project }));
}

/**
 * Puts the media files of a Project into another folder: hard links where the file system
 * allows (a duplicate costs no space; deleting either keeps the other's), else copies. A file
 * missing from disk is skipped and named in the answer.
 */
export async function linkMedia(
  from: string,
  to: string,
  paths: readonly string[],
): Promise<string[]> {
  const missing: string[] = [];
  for (const path of paths) {
    const target = `${to}/${path}`;
    await Deno.mkdir(target.slice(0, target.lastIndexOf("/")), { recursive: true });
    try {
      await Deno.link(`${from}/${path}`, target);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) {
        missing.push(path);
        continue;
      }
      await Deno.copyFile(`${from}/${path}`, target); // another device, or no links here
    }
  }
  return missing;
}

/**
 * Removes at start what an interrupted run left: staging folders of Projects that were never
 * put in place, and the trash deleted before `keepSince` (the service's start, ms since the
 * epoch: a player restarted by the service keeps what was deleted since; absent, all of it).
 * @returns how many folders it removed
 */
export async function cleanLibraryFolders(dataDir: string, keepSince?: number): Promise<number> {
  let removed = 0;
  const remove = async (path: string) => {
    await Deno.remove(path, { recursive: true });
    removed++;
  };
  for (const entry of await list(`${dataDir}/projects`)) {
    if (entry.isDirectory && entry.name.startsWith(".new-")) {
      await remove(`${dataDir}/projects/${entry.name}`);
    }
  }
  for (const entry of await list(`${dataDir}/trash`)) {
    const deletedAt = trashName(entry.name)?.deletedAt ?? 0;
    if (keepSince === undefined || deletedAt < keepSince) {
      await remove(`${dataDir}/trash/${entry.name}`);
    }
  }
  return removed;
}

/** A folder of the trash, `<id>.<ms>`. */
export interface TrashFolder {
  id: string;
  /** When it was deleted, ms since the epoch. */
  deletedAt: number;
  dir: string;
}

/** The Projects in `trash/`, oldest first (a restarted player restores them). */
export async function listTrash(dataDir: string): Promise<TrashFolder[]> {
  const found: TrashFolder[] = [];
  for (const entry of await list(`${dataDir}/trash`)) {
    const name = trashName(entry.name);
    if (entry.isDirectory && name) found.push({ ...name, dir: `${dataDir}/trash/${entry.name}` });
  }
  return found.sort((a, b) => a.deletedAt - b.deletedAt);
}

/** The id and time of a trash folder's name `<id>.<ms>` (ids have no dot), or null. */
function trashName(name: string): { id: string; deletedAt: number } | null {
  const dot = name.lastIndexOf(".");
  const ms = name.slice(dot + 1);
  if (dot <= 0 || !/^\d+$/.test(ms)) return null;
  return { id: name.slice(0, dot), deletedAt: Number(ms) };
}

async function list(dir: string): Promise<Deno.DirEntry[]> {
  try {
    return await Array.fromAsync(Deno.readDir(dir));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
}
