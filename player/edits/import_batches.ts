/**
 * Batches that import files: their copies run beside the request order
 * (`import_jobs.ts`), at most `MAX_IMPORTING` at once, and each commits in its
 * turn once its files are copied. Counts, per Project, the files on their way in.
 * @module
 */
import type { EditApplyParams, EditApplyResult } from "../../protocol/edits/mod.ts";
import { Beside } from "../beside.ts";
import type { ProjectEngine } from "../engine/project_engine.ts";
import { Refusal } from "../errors.ts";
import type { Committer } from "./committer.ts";
import { IdMaker, isTaken, withIdSeed } from "./draft.ts";
import type { EditOptions, EditorHost } from "./editor_host.ts";
import { failJobs, stageImports } from "./import_jobs.ts";
import type { ParsedEdit } from "./parse.ts";
import type { RetryKeys } from "./retry_keys.ts";
import type { Turns } from "./turns.ts";

/**
 * Batches copying at once, at most. Each copies its files one after the
 * other; more would only share the disk, so a fifth is refused, not queued.
 */
const MAX_IMPORTING = 4;

/** The parts of the editor an import batch goes through. */
export interface ImportParts {
  turns: Turns;
  keys: RetryKeys;
  committer: Committer;
}

/** The batches that import files, and what they bring into each Project. */
export class ImportBatches {
  #host: EditorHost;
  #parts: ImportParts;
  #importing = 0;
  /** Per Project, how many files batches copy into it (from their start to their commit). */
  #into = new Map<string, number>();

  /** Import batches over `host`, committed through `parts`. */
  constructor(host: EditorHost, parts: ImportParts) {
    this.#host = host;
    this.#parts = parts;
  }

  /** How many files batches are importing into Project `projectId` (copying, or waiting to commit). */
  into(projectId: string): number {
    return this.#into.get(projectId) ?? 0;
  }

  /**
   * Starts a batch with `file.import` edits into `engine`'s Project: its copies
   * begin now, beside the order; the `Beside` commits it in its turn once they are done.
   * @throws {Refusal} at once when `MAX_IMPORTING` batches are copying
   */
  start(
    engine: ProjectEngine,
    request: { params: EditApplyParams; parsed: ParsedEdit[]; options: EditOptions },
  ): Beside<EditApplyResult> {
    const { params, parsed, options } = request;
    if (this.#importing >= MAX_IMPORTING) {
      throw new Refusal(
        `Too many imports at once: ${this.#importing} are copying; send this one when one has finished`,
      );
    }
    const imports = parsed.filter((e) => e.spec.name === "file.import")
      .map((e) => e.params as { path: string; name?: string });
    this.#importing++;
    const projectId = engine.project.id;
    const staging = stageImports(imports, {
      projectId,
      mediaDir: `${this.#host.store.projectDir(projectId)}/media`,
      isMove: params.isUpload === true,
      isTaken: (id) => isTaken(engine.project, id),
      emit: (update) => this.#host.emit(update),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      // Its own ids, apart from the commit's (`withIdSeed` below): the same on every rig.
      ids: new IdMaker(params.seed === undefined ? undefined : `${params.seed}/import`),
    }).finally(() => this.#importing--);
    const committed = Promise.withResolvers<EditApplyResult>();
    committed.promise.catch(() => {}); // only retries that come meanwhile read it
    this.#count(projectId, imports.length, committed.promise);
    this.#parts.keys.track(params.idempotencyKey, committed.promise);
    staging.catch((error) => committed.reject(error));
    return new Beside(staging.then((jobs) => async () => {
      let target: ProjectEngine;
      try {
        target = this.#host.engine(projectId); // the same Project, even if it was reloaded
      } catch (error) {
        await failJobs(jobs, error, { projectId, emit: (u) => this.#host.emit(u) });
        committed.reject(error);
        throw error;
      }
      try {
        const { turns, committer } = this.#parts;
        const key = params.idempotencyKey;
        const result = await turns.run(() =>
          withIdSeed(params.seed, () => committer.run(target, parsed, jobs, key))
        );
        committed.resolve(result);
        return result;
      } catch (error) {
        committed.reject(error);
        throw error;
      }
    }));
  }

  /** Counts `files` imported into Project `projectId` until `done` settles. */
  #count(projectId: string, files: number, done: Promise<unknown>): void {
    const add = (n: number) => {
      const count = this.into(projectId) + n;
      if (count > 0) this.#into.set(projectId, count);
      else this.#into.delete(projectId);
    };
    add(files);
    done.finally(() => add(-files)).catch(() => {});
  }
}
