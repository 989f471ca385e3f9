/**
 * What the player does with the files of its data dir found damaged at
 * start (`lib/recover_file.ts`): one log line each, a library entry for
 * a Project that could not be loaded, and the refusal of what names it.
 * @module
 */
import type { DataProblem, LibraryEntry } from "../protocol/library.ts";
import { RpcErrorCode } from "../protocol/jsonrpc.ts";
import { playerProblemLine } from "../lib/recover_file.ts";
import { Refusal } from "./errors.ts";

/** The one log line of `problem`: the file, what is wrong, what is served instead. */
export function damageLine(problem: DataProblem): string {
  return playerProblemLine(problem);
}

/** The library entry of a Project whose `project.json` had no good copy. */
export function damagedEntry(problem: DataProblem & { projectId: string }): LibraryEntry {
  return {
    projectId: problem.projectId,
    name: problem.projectId,
    state: "damaged",
    songCount: 0,
    clipCount: 0,
    problem,
  };
}

/** The refusal of an action or an edit that names a damaged Project (NOT_FOUND: it is not open). */
export function damagedRefusal(entry: LibraryEntry): Refusal {
  const problem = entry.problem;
  const what = problem ? `${problem.file}: ${problem.problem}` : "its file cannot be read";
  return new Refusal(
    `Project "${entry.projectId}" is damaged (${what}); repair or replace the file, then open it`,
    RpcErrorCode.NOT_FOUND,
  );
}
