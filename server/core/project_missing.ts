/**
 * The refusal of a request that names a Project that is not open: a damaged
 * one is named with its file and what is wrong with it (`protocol/library.ts`),
 * so the operator knows what to repair; a closed or deleted one with the edit
 * that brings it back; any other does not exist.
 * @module
 */
import type { LibraryEntry } from "../../protocol/library.ts";
import { CueportError } from "./errors.ts";
import { notOpenHint } from "../../protocol/edits/project.ts";

/**
 * NOT_FOUND for `projectId`, saying why when the library knows it damaged; `field` is how the
 * request named it (`projectID`, the target of an action or edit; `projectId`, a resource).
 */
export function projectMissing(
  library: readonly LibraryEntry[],
  projectId: string | null,
  field: "projectID" | "projectId" = "projectID",
): CueportError {
  const entry = library.find((e) => e.projectId === projectId);
  const message = entry?.state === "damaged"
    ? `Project "${projectId}" is damaged (${
      entry.problem ? `${entry.problem.file}: ${entry.problem.problem}` : "its file cannot be read"
    }); repair or replace the file, then open it`
    : (projectId && notOpenHint(projectId, entry?.state)) ??
      `Project "${projectId}" does not exist`;
  return new CueportError("NOT_FOUND", message, { field });
}
