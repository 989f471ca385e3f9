/**
 * The undo/redo history of one Project, bounded and kept on disk beside the
 * project (`history.json`). It records the project revision it belongs to;
 * a history that does not match the project on load (a crash between the
 * two writes) is dropped rather than trusted.
 * @module
 */
import { writeJsonAtomic } from "../../protocol/atomic_write.ts";
import type { ProjectPatch } from "../../protocol/patch.ts";

/** One undoable step: an edit or a batch. */
export interface HistoryEntry {
  /** Names of the edits of the step. */
  edits: string[];
  at: string;
  /** Turns the state before the step into the state after it. */
  forward: ProjectPatch;
  /** Turns it back. */
  backward: ProjectPatch;
}

/** The stored history. */
export interface History {
  projectRevision: number;
  undo: HistoryEntry[];
  redo: HistoryEntry[];
}

/** Reads a project's history; an empty one when missing, unreadable or stale. */
export async function loadHistory(
  dir: string,
  projectRevision: number,
  log?: (message: string) => void,
): Promise<History> {
  const empty: History = { projectRevision, undo: [], redo: [] };
  let raw: History;
  try {
    raw = JSON.parse(await Deno.readTextFile(`${dir}/history.json`));
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) log?.(`Cannot read history: ${error}`);
    return empty;
  }
  if (raw?.projectRevision !== projectRevision || !Array.isArray(raw.undo)) {
    log?.(
      `History of revision ${raw?.projectRevision} does not match project revision ${projectRevision}: dropped`,
    );
    return empty;
  }
  return { projectRevision, undo: raw.undo, redo: Array.isArray(raw.redo) ? raw.redo : [] };
}

/** Writes a project's history atomically. */
export function saveHistory(dir: string, history: History): Promise<void> {
  return writeJsonAtomic(`${dir}/history.json`, history);
}
