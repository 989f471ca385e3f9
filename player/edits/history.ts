/**
 * The undo/redo history of one Project, bounded and kept on disk beside the
 * project (`history.json`, with kept copies). It records the project revision
 * it belongs to; a history that does not match the project on load (a crash
 * between the two writes) is dropped rather than trusted. A history that does
 * not parse or does not match its shape is dropped too, moved aside for the
 * operator and reported as a `DataProblem` (`checkHistory`, at start): an
 * older kept copy is of an older revision, so it cannot stand in.
 * @module
 */
import { z } from "zod";
import { writeJsonAtomic } from "../../lib/atomic_write.ts";
import { KEEP_GENERATIONS } from "../../lib/kept_copies.ts";
import { jsonParser, readRecovering } from "../../lib/recover_file.ts";
import type { DataProblem } from "../../protocol/library.ts";
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

const Entry = z.object({
  edits: z.array(z.string()),
  at: z.string(),
  forward: z.record(z.string(), z.unknown()),
  backward: z.record(z.string(), z.unknown()),
});

/** The shape a `history.json` must have to be used (the patches are checked when applied). */
const HistoryFile = z.object({
  projectRevision: z.number().int(),
  undo: z.array(Entry),
  redo: z.array(Entry).default([]),
});

const parseHistory = jsonParser(HistoryFile);

/** Reads a project's history; an empty one when missing, unreadable or stale. */
export async function loadHistory(
  dir: string,
  projectRevision: number,
  log?: (message: string) => void,
): Promise<History> {
  const empty: History = { projectRevision, undo: [], redo: [] };
  let raw: History;
  try {
    raw = parseHistory(await Deno.readTextFile(`${dir}/history.json`)) as History;
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) log?.(`Cannot read history: ${error}`);
    return empty;
  }
  if (raw.projectRevision !== projectRevision) {
    log?.(
      `History of revision ${raw.projectRevision} does not match project revision ${projectRevision}: dropped`,
    );
    return empty;
  }
  return raw;
}

/**
 * At start: a `history.json` of `projects/<projectId>` that does not parse or
 * does not match its shape is moved aside (`history.json.damaged-<stamp>`) and
 * reported; the Project then starts with no history. Null when it is fine or missing.
 */
export async function checkHistory(
  dataDir: string,
  projectId: string,
): Promise<DataProblem | null> {
  const read = await readRecovering(`${dataDir}/projects/${projectId}/history.json`, {
    dataDir,
    parse: parseHistory,
    projectId,
    keep: 0,
  });
  return read.problem;
}

/** Writes a project's history atomically, keeping the previous versions. */
export function saveHistory(dir: string, history: History): Promise<void> {
  return writeJsonAtomic(`${dir}/history.json`, history, { keep: KEEP_GENERATIONS });
}
