/**
 * Uploads into a Project: the body staged on disk (streamed, size-limited),
 * its progress published as `upload-progress` updates, then imported by an
 * edit (`file.import`, or `preset.import` for an ISF shader).
 * @module
 */
import { sanitizeFileName } from "../../lib/file_names.ts";
import type { StateUpdate } from "../../protocol/state.ts";
import type { EditRunner } from "./edit_runner.ts";
import type { EditResult } from "./edits.ts";
import { CueportError } from "./errors.ts";
import type { PlayerLink } from "./player_link.ts";
import { projectMissing } from "./project_missing.ts";
import { stageUpload } from "./uploads.ts";
import { type UploadPart, withImagesBeside } from "./upload_images.ts";

/** Options of `Core.importUpload`. */
export interface UploadOptions {
  /** The name the file gets (sanitized by the player; traversal refused here first). */
  name: string;
  projectId: string | null;
  maxBytes: number;
  /** The size the client announced, when it did (progress reports use it). */
  expectedBytes: number | null;
  /**
   * The files sent after it: with a shader (`.fs`), its `IMPORTED` images, staged beside it
   * (`upload_images.ts`); ignored after a media file, as before.
   */
  others?: AsyncIterable<UploadPart>;
}

/**
 * The player's refusal of an `IMPORTED` image missing beside the `.fs`
 * (`player/output/imported_images.ts`): what it reads, and the file's name.
 */
const MISSING_IMAGE =
  /^(Invalid file: IMPORTED "[^"]*" reads "([^"]+)"), which is not beside the \.fs/;

/** Stages and imports uploads (`Core.importUpload`). */
export class UploadImporter {
  #link: PlayerLink;
  #edits: EditRunner;
  #stagingDir: string | undefined;

  /** Uploads are imported by `edits`; staged in `stagingDir`, or a temp folder when none. */
  constructor(link: PlayerLink, options: { edits: EditRunner; stagingDir: string | undefined }) {
    this.#link = link;
    this.#edits = options.edits;
    this.#stagingDir = options.stagingDir;
  }

  /** Where uploads are staged; a temp folder when no folder was given. */
  async stagingFolder(): Promise<string> {
    return this.#stagingDir ?? await Deno.makeTempDir({ prefix: "cueport-upload-" });
  }

  /**
   * Stages an uploaded file (streamed, size-limited) and imports it into a
   * Project; clients see `upload-progress` updates while it arrives.
   * @throws {CueportError} PAYLOAD_TOO_LARGE, UNSUPPORTED_MEDIA, CORRUPT_MEDIA, and those of runEdit
   */
  async run(body: AsyncIterable<Uint8Array>, options: UploadOptions): Promise<EditResult> {
    const safe = sanitizeFileName(options.name);
    if ("error" in safe) {
      throw new CueportError("INVALID_MESSAGE", `Invalid name: ${safe.error}`, { field: "name" });
    }
    const model = this.#link.model;
    this.#link.requireReady();
    const projectId = options.projectId ?? model.activeProjectId;
    if (projectId === null || !model.project(projectId)) {
      throw projectMissing(model.library, projectId);
    }
    const progress = this.#progress(projectId, options);
    // No await with a staging folder given: the first report goes out in this same turn.
    const dir = this.#stagingDir ?? await Deno.makeTempDir({ prefix: "cueport-upload-" });
    progress.report(0); // listed at once, before the first bytes arrive
    let staged: { path: string; size: number };
    try {
      staged = await stageUpload(body, {
        dir,
        maxBytes: options.maxBytes,
        onProgress: (bytes) => progress.report(bytes),
      });
    } catch (error) {
      progress.report(Math.max(progress.reported, 0), { error: (error as Error).message });
      throw error;
    }
    progress.report(staged.size, {});
    try {
      if (/\.fs$/i.test(options.name)) {
        return await withImagesBeside(
          staged.path,
          options,
          dir,
          (path) => this.#importShader(path, options.name, projectId),
        );
      }
      return await this.#edits.run({
        name: "file.import",
        params: { path: staged.path, name: options.name },
        projectID: projectId,
      }, { isLocal: true, isUpload: true });
    } finally {
      await Deno.remove(staged.path).catch(() => {});
    }
  }

  /**
   * The `upload-progress` reports of one upload: at most one per step (a
   * twentieth of the announced size, 256 KiB at least), and always its end.
   */
  #progress(projectId: string, options: UploadOptions) {
    const uploadId = crypto.randomUUID();
    const expected = options.expectedBytes;
    const step = Math.max(256 * 1024, Math.floor((expected ?? 0) / 20));
    const state = {
      reported: -1,
      report: (bytes: number, end?: { error?: string }) => {
        if (!end && state.reported >= 0 && bytes - state.reported < step) return;
        state.reported = bytes;
        const update: StateUpdate = {
          updateType: "project",
          projectId,
          data: {
            event: "upload-progress",
            uploadId,
            name: options.name,
            bytes,
            totalBytes: expected,
            done: end !== undefined,
            ...(end?.error ? { error: end.error } : {}),
          },
        };
        this.#link.model.apply(update); // GET /api/v1/imports lists it
        this.#link.bus.publish(update);
      },
    };
    return state;
  }

  /**
   * An uploaded ISF file (`.fs`) as a user preset (`preset.import`, docs/presets.md);
   * a problem of the file names the upload's `file` field, and an `IMPORTED` image the upload
   * did not send is the upload's to mend (400), said without the staging folder's path.
   */
  async #importShader(path: string, fileName: string, projectID: string): Promise<EditResult> {
    const name = fileName.replace(/\.fs$/i, "").trim();
    const params = { path, ...(name ? { name } : {}) };
    try {
      return await this.#edits.run({ name: "preset.import", params, projectID }, { isLocal: true });
    } catch (error) {
      // `params.path`, or `params.path (.vs)` for the vertex shader beside it.
      const field = error instanceof CueportError ? error.details?.field : undefined;
      if (typeof field !== "string" || !/^params\.path(?: |$)/.test(field)) throw error;
      const refusal = error as CueportError;
      const message = refusal.message.replace("Invalid params.path", "Invalid file");
      const missing = MISSING_IMAGE.exec(message);
      if (missing) {
        throw new CueportError(
          "INVALID_MESSAGE",
          `${missing[1]}, which this upload did not send: send it in the same upload, a further ` +
            `file field named ${missing[2]} after the .fs (curl -F 'file=@${fileName}' -F ` +
            `'file=@${missing[2]}')`,
          { field: "file" },
        );
      }
      throw new CueportError(refusal.code, message, { ...refusal.details, field: "file" });
    }
  }
}
