/**
 * The slow part of a batch that imports files. Each `file.import` becomes a
 * job (`import-<8 hex>`): every file of the batch is measured first (a bad
 * one refuses the batch before any byte is copied), then each is copied to
 * its partial name in turn, with `import-progress` updates as it goes. It
 * runs beside other requests; the batch then commits (`Editor`), which places
 * the files and ends each job with a last update (`done`).
 * @module
 */
import { DELIBERATE, RpcErrorCode } from "../../protocol/jsonrpc.ts";
import type { ImportProgress, StateUpdate } from "../../protocol/state.ts";
import { Refusal } from "../errors.ts";
import { IdMaker } from "./draft.ts";
import {
  discardImport,
  type MeasuredImport,
  measureImport,
  type StagedImport,
  stageImport,
} from "./file_import.ts";

/** One file of a batch, staged: placed under `fileId` when the batch commits. */
export interface ImportJob {
  readonly staged: StagedImport;
  /** The id the file gets, unless the Project took it meanwhile. */
  readonly fileId: string;
}

/** What `stageImports` needs. */
export interface ImportJobsOptions {
  projectId: string;
  mediaDir: string;
  /** Move instead of copy (uploads). */
  isMove: boolean;
  /** Whether the Project uses an id now. */
  isTaken(id: string): boolean;
  /** Progress, at once: the update for clients, and the batch's bytes done and in all. */
  onProgress?: (update: StateUpdate, done: number, total: number) => void;
  /** Receives the last update of each job that failed. */
  emit(update: StateUpdate): void;
  /** Stops the copies; their partial files are removed. */
  signal?: AbortSignal;
  /** Makes the job and file ids (a seeded one for a rig group's log entry); random when absent. */
  ids?: IdMaker;
}

/** The `import-progress` update of a job. */
export function importUpdate(
  projectId: string,
  data: Omit<ImportProgress, "event">,
): StateUpdate {
  return { updateType: "project", projectId, data: { event: "import-progress", ...data } };
}

/** The last update of a job that failed: `done`, with the reason in `error`. */
function failedUpdate(
  projectId: string,
  job: { jobId: string; fileId: string; name: string; bytes: number; size: number },
  error: unknown,
): StateUpdate {
  const { jobId, fileId, name, bytes, size } = job;
  const message = (error as Error).message;
  return importUpdate(projectId, {
    jobId,
    fileId,
    name,
    bytes,
    totalBytes: size,
    done: true,
    error: message,
  });
}

/** Ends jobs that will not be placed: their partial files go, clients get `done` with `error`. */
export async function failJobs(
  jobs: readonly ImportJob[],
  error: unknown,
  options: Pick<ImportJobsOptions, "projectId" | "emit">,
): Promise<void> {
  for (const { staged, fileId } of jobs) {
    await discardImport(staged);
    const { jobId, name, info } = staged;
    options.emit(failedUpdate(options.projectId, {
      jobId,
      fileId,
      name,
      bytes: info.size,
      size: info.size,
    }, error));
  }
}

/**
 * Measures, then copies, the files of a batch, in order.
 * @throws {Refusal} for the first file that cannot be imported; nothing is left behind
 */
export async function stageImports(
  requests: ReadonlyArray<{ path: string; name?: string | undefined }>,
  options: ImportJobsOptions,
): Promise<ImportJob[]> {
  const measured: MeasuredImport[] = [];
  for (const { path, name } of requests) {
    measured.push(await measureImport(path, name ?? path.split(/[\\/]/).pop()!));
  }
  const total = measured.reduce((sum, m) => sum + m.info.size, 0);
  const ids = new Set<string>();
  const maker = options.ids ?? new IdMaker();
  const jobs: ImportJob[] = [];
  let before = 0;
  for (const file of measured) {
    const jobId = maker.next("import", () => false);
    const fileId = maker.next("file", (id) => options.isTaken(id) || ids.has(id));
    ids.add(fileId);
    let copied = 0;
    const report = (bytes: number) => {
      copied = bytes;
      options.onProgress?.(
        importUpdate(options.projectId, {
          jobId,
          fileId,
          name: file.name,
          bytes,
          totalBytes: file.info.size,
          done: false,
        }),
        before + bytes,
        total,
      );
    };
    try {
      const staged = await stageImport(file, {
        mediaDir: options.mediaDir,
        jobId,
        isMove: options.isMove,
        onProgress: report,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      jobs.push({ staged, fileId });
    } catch (error) {
      const reason = options.signal?.aborted
        ? new Refusal(
          `Import of "${file.name}" stopped: ${(options.signal.reason as Error).message}`,
          RpcErrorCode.INTERNAL_ERROR,
          DELIBERATE,
        )
        : error;
      await failJobs(jobs, reason, options);
      options.emit(failedUpdate(options.projectId, {
        jobId,
        fileId,
        name: file.name,
        bytes: copied,
        size: file.info.size,
      }, reason));
      throw reason;
    }
    before += file.info.size;
  }
  return jobs;
}
