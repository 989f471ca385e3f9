/**
 * The Projects on disk as the player knows them (its library) and the
 * problems it found with the files of the data dir, declared once: the
 * player fills them, the snapshot and the `project` updates carry them, and
 * the service answers them in `/api/v1/projects`, `status` and `/health`.
 * @module
 */
import { z } from "zod";

/**
 * A file of the data dir that could not be used as it was (it does not parse, or does not
 * match the model). Found at start; reported until the service restarts.
 */
export const DataProblem = z.strictObject({
  file: z.string().describe("Path under the data dir, e.g. projects/demo/project.json"),
  problem: z.string().describe("What is wrong with it, e.g. not JSON: ... at position 12"),
  recoveredFrom: z.string().nullable().describe(
    "The older good copy served instead (path under the data dir); null when none was good",
  ),
  keptAs: z.string().nullable().describe(
    "Where the damaged file is kept for the operator (path under the data dir); null if it was not kept",
  ),
  projectId: z.string().nullable().describe("The Project the file belongs to, if any"),
  at: z.string().describe("When it was found, ISO 8601"),
});

/**
 * Where a Project of the library stands: `open` (loaded; actions and edits reach it),
 * `closed` (on disk, not loaded), `damaged` (its file could not be read and no good copy
 * was found: kept on disk, not loaded), `deleted` (in the trash: `project.restore` brings it
 * back until the service restarts).
 */
export const ProjectState = z.enum(["open", "closed", "damaged", "deleted"]);

/** One Project of the library. */
export const LibraryEntry = z.strictObject({
  projectId: z.string(),
  name: z.string(),
  state: ProjectState,
  songCount: z.number().int(),
  clipCount: z.number().int(),
  /** The problem found with its files, when it was damaged (recovered or not). */
  problem: DataProblem.nullable(),
});

/** Derived types. */
export type DataProblem = z.infer<typeof DataProblem>;
export type ProjectState = z.infer<typeof ProjectState>;
export type LibraryEntry = z.infer<typeof LibraryEntry>;
