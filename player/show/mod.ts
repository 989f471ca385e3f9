/**
 * The show file on the player's side: `show.import` (`import.ts`), wired to
 * the app. Its slow part (checks and extraction) runs beside the order and
 * reports its bytes; its commit (the rename, and the adoption) joins the order.
 * @module
 */
import type { LibraryEntry } from "../../protocol/library.ts";
import type { ShowImportResult } from "../../protocol/methods.ts";
import type { Preset, Project } from "../../protocol/model.ts";
import type { Snapshot, StateUpdate } from "../../protocol/state.ts";
import { Beside } from "../beside.ts";
import { commitShow, type ShowImportHost, stageShow } from "./import.ts";

export { PENDING_PRESETS, recoverImportFolders, STAGING_PREFIX } from "./import.ts";

/** Least time between two progress reports of an import, ms. */
const REPORT_MS = 100;

/**
 * What `show.import` needs of the application (`PlayerApp` is one): the show code depends on
 * this, not on the app, which depends on the show code.
 */
export interface ShowApp {
  readonly store: { readonly dataDir: string };
  presets(): readonly Preset[];
  library(): LibraryEntry[];
  snapshot(): Pick<Snapshot, "playstates">;
  removeProject(id: string, reason: "replaced"): void;
  importing(id: string): number;
  keepInTrash(id: string, folder: string): Promise<void>;
  adoptProject(id: string, reason: "imported"): Promise<Project>;
}

/** What `show.import` needs of the app. */
function hostOf(app: ShowApp): ShowImportHost {
  return {
    dataDir: app.store.dataDir,
    presets: () => app.presets(),
    hasProject: (id) => app.library().some((entry) => entry.projectId === id),
    // A play state lists only the Clips that play or are paused.
    isBusy: (id) =>
      app.snapshot().playstates.some((ps) =>
        ps.projectId === id && (ps.clips.length > 0 || (ps.song?.state ?? "stopped") !== "stopped")
      ),
    importing: (id) => app.importing(id),
    removeProject: (id) => {
      // Open: out of play (its engine stops); closed or damaged: only listed, nothing to stop.
      if (app.library().some((e) => e.projectId === id && e.state === "open")) {
        app.removeProject(id, "replaced");
      }
      return Promise.resolve();
    },
    trash: (id, folder) => app.keepInTrash(id, folder),
    adoptProject: (id) => app.adoptProject(id, "imported"),
  };
}

/** Options of `importShow`: the request's progress and end. */
export interface ImportShowOptions {
  progress(update: StateUpdate, done: number, total: number | null): void;
  signal: AbortSignal;
}

/**
 * Imports the show file at `path` (`show.import`): checked and extracted
 * beside the order, committed in it.
 */
export function importShow(
  app: ShowApp,
  params: { path: string; replace: boolean; force?: boolean },
  options: ImportShowOptions,
): Beside<ShowImportResult> {
  const host = hostOf(app);
  let reportedAt = -Infinity;
  const onProgress = (done: number, total: number) => {
    const now = performance.now();
    if (done < total && now - reportedAt < REPORT_MS) return;
    reportedAt = now;
    const data = { event: "show-import-progress", bytes: done, totalBytes: total };
    options.progress({ updateType: "project", projectId: null, data }, done, total);
  };
  const staged = stageShow(params, host, { signal: options.signal, onProgress });
  return new Beside(staged.then((show) => () => commitShow(show, host, params)));
}
