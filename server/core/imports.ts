/**
 * Imports and uploads under way, as `GET /api/v1/imports` lists them: kept
 * by the read model from the `import-progress` updates of the player and the
 * `upload-progress` updates of the service; a job leaves the list with its
 * last update (`done`).
 * @module
 */
import { z } from "zod";
import type { StateUpdate } from "../../protocol/state.ts";

/** One import or upload under way. */
export const ImportJobView = z.strictObject({
  jobId: z.string().describe("Names the job in every progress update (uploadId for uploads)"),
  projectId: z.string(),
  name: z.string().describe("The file name asked for"),
  phase: z.enum(["uploading", "copying"]).describe(
    "uploading: the body arrives at the service; copying: the player copies the file into media/",
  ),
  bytes: z.number().int().describe("Bytes received or copied so far"),
  totalBytes: z.number().int().nullable().describe("null for an upload of unannounced size"),
  fileId: z.string().nullable().describe("The id the file gets (copying only)"),
  startedAt: z.string().describe("When the service saw the job's first report"),
});
/** One import or upload under way. */
export type ImportJobView = z.infer<typeof ImportJobView>;

/** The jobs under way, updated from progress updates. */
export class ImportJobs {
  #jobs = new Map<string, ImportJobView>();

  /** Applies an `import-progress` or `upload-progress` update; true when it was one. */
  apply(update: StateUpdate): boolean {
    const { data, projectId } = update;
    const isImport = data.event === "import-progress";
    if (!isImport && data.event !== "upload-progress") return false;
    const jobId = String(isImport ? data.jobId : data.uploadId);
    if (data.done === true || projectId === null) {
      this.#jobs.delete(jobId);
      return true;
    }
    const total = data.totalBytes;
    this.#jobs.set(jobId, {
      jobId,
      projectId,
      name: String(data.name ?? ""),
      phase: isImport ? "copying" : "uploading",
      bytes: Number(data.bytes ?? 0),
      totalBytes: typeof total === "number" ? total : null,
      fileId: isImport && typeof data.fileId === "string" ? data.fileId : null,
      startedAt: this.#jobs.get(jobId)?.startedAt ?? new Date().toISOString(),
    });
    return true;
  }

  /** Forgets the player's jobs (it restarted, and its copies with it); uploads stay. */
  dropCopies(): void {
    for (const [jobId, job] of this.#jobs) {
      if (job.phase === "copying") this.#jobs.delete(jobId);
    }
  }

  /** The jobs, oldest first. */
  list(): ImportJobView[] {
    return [...this.#jobs.values()];
  }
}
