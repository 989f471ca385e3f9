/**
 * What a previous run left half done in the data dir, undone at start before anything is
 * read: the trash and the Projects never put in place, partial copies of imported files,
 * temp files of writes, and show imports a stop interrupted.
 * @module
 */
import { removeStaleTemps } from "../../lib/atomic_write.ts";
import { recoverImportFolders } from "../show/import.ts";
import type { ProjectStore } from "../store.ts";
import { cleanLibraryFolders } from "./folders.ts";

/**
 * Tidies `store`'s data dir; `info` hears one line for each kind of thing removed. The trash
 * deleted before `keepTrashSince` goes (the service's start; absent: all of it).
 */
export async function tidyDataDir(
  store: ProjectStore,
  info: (message: string) => void,
  keepTrashSince?: number,
): Promise<void> {
  const folders = await cleanLibraryFolders(store.dataDir, keepTrashSince);
  if (folders > 0) {
    info(
      `Removed ${folders} folder(s): the trash of the last run, and Projects never put in place`,
    );
  }
  const removed = await store.removePartialImports();
  if (removed > 0) info(`Removed ${removed} partial import(s) an interrupted copy left`);
  // live.json, player.json and presets.json are written here; projects clean their own folder.
  const temps = await removeStaleTemps(store.dataDir);
  if (temps > 0) info(`Removed ${temps} temp file(s) interrupted writes left`);
  const staged = await recoverImportFolders(store.dataDir);
  if (staged > 0) info(`Undid ${staged} show import(s) a stop interrupted`);
}
