/**
 * Media files left behind by history that can no longer be replayed: an
 * undone `file.import` keeps its file for redo, so the file goes when that
 * redo step is dropped (a new edit after the undo) and nothing else names it.
 * @module
 */
import type { Project } from "../../protocol/model.ts";
import type { History, HistoryEntry } from "./history.ts";

const mediaOf = (entry: HistoryEntry): string[] =>
  [...(entry.forward.fields?.files ?? []), ...(entry.backward.fields?.files ?? [])].map((f) =>
    f.path
  );

/**
 * Paths (relative to the project folder, under `media/`) that only the
 * entries dropped between `before` and `after` named: in neither the Project
 * nor any step still in its history. A file nobody's history ever named
 * (put there by hand) is never one of them.
 */
export function orphanedMedia(before: History, after: History, project: Project): string[] {
  const kept = new Set([...after.undo, ...after.redo]);
  const dropped = [...before.undo, ...before.redo].filter((entry) => !kept.has(entry));
  if (dropped.length === 0) return [];
  const live = new Set(project.files.map((f) => f.path));
  for (const entry of kept) for (const path of mediaOf(entry)) live.add(path);
  const orphans = new Set(dropped.flatMap(mediaOf));
  return [...orphans].filter((path) =>
    !live.has(path) && path.startsWith("media/") && !path.split("/").includes("..")
  );
}
