/**
 * The show file's operations (docs/projects.md, "The show file"): export a
 * Project as a zip, streamed to an HTTP client or written to a path on the
 * show machine (MCP), and import one, uploaded over HTTP or from a path (MCP).
 *
 * Scope `edit` for all four: a show file carries every media file and every
 * preset's code of a Project whole, more than a `view` device (a wall remote,
 * a stage display) reads, which sees names and thumbnails; and what is
 * exported is meant to be imported, which is an edit.
 * @module
 */
import { z } from "zod";
import { ShowImportResult } from "../../../protocol/methods.ts";
import {
  presetImagePath,
  SHOW_MEDIA_TYPE,
  showFileName,
  writeShowFileWhole,
} from "../../../protocol/show_file.ts";
import type { PresetImage } from "../../../protocol/model.ts";
import { VERSION } from "../../version.ts";
import type { Core } from "../core.ts";
import { CueportError } from "../errors.ts";
import { projectMissing } from "../project_missing.ts";
import { imagesOf, presetsOf, writeShow } from "../show_export.ts";
import { stageUpload } from "../uploads.ts";
import { type AnyOperation, defineOperation } from "./operation.ts";

/** A show file as it is written: the bytes of an HTTP answer, and its name. */
export class ShowDownload {
  /** Builds the answer. */
  constructor(
    readonly body: ReadableStream<Uint8Array>,
    readonly fileName: string,
    readonly contentType: string = SHOW_MEDIA_TYPE,
  ) {}
}

/** The answer of an import: the player's `show.import` result, and `ok`. */
export const ShowImportView = z.strictObject({ ok: z.literal(true), ...ShowImportResult.shape });

/** What the import route hands its operation: the zip's bytes as they arrive. */
export interface ShowUploadInput {
  chunks: AsyncIterable<Uint8Array>;
  /** `?replace=true` came. */
  isReplace: boolean;
  /** `?force=true` came: replace even while the Project plays. */
  isForced: boolean;
  maxBytes: number;
}

/** The Project `projectId` and what an export reads of it. */
function sourceOf(core: Core, projectId: string) {
  core.requireReady();
  const project = core.model.project(projectId);
  // Closed: say to open it; damaged: its file and problem (as GET /api/v1/projects/:id does).
  if (!project) throw projectMissing(core.model.library, projectId);
  const { dataDir } = core;
  return {
    project,
    presets: core.model.presets,
    locate: (fileId: string) => core.locateFile(project.id, fileId),
    imagePath: (image: PresetImage) =>
      dataDir === null ? null : `${dataDir}/${presetImagePath(image)}`,
    version: VERSION,
  };
}

/**
 * Starts the export of `projectId` into a stream; a reader that goes away stops it.
 * Every media file is located first, so one missing from disk is a 404 naming it,
 * not an answer cut short.
 */
async function exportStream(
  core: Core,
  projectId: string,
  signal?: AbortSignal,
): Promise<ShowDownload> {
  const source = await locatedSource(core, projectId);
  const pipe = new TransformStream<Uint8Array, Uint8Array>();
  // A failure mid-way aborts the stream: the client sees a cut answer, never a whole-looking one.
  writeShow(source, pipe.writable, signal).catch(() => {});
  return new ShowDownload(pipe.readable, showFileName(source.project.name));
}

/**
 * `sourceOf`, with every media file located now (NOT_FOUND names one gone from disk), and every
 * `IMPORTED` image of its presets found.
 */
async function locatedSource(core: Core, projectId: string) {
  const source = sourceOf(core, projectId);
  const files = source.project.files;
  const located = await Promise.all(files.map((f) => source.locate(f.id)));
  for (const [path, onDisk] of imagesOf(presetsOf(source.project, source.presets), source)) {
    if (!(await Deno.stat(onDisk).then((s) => s.isFile, () => false))) {
      throw new CueportError(
        "NOT_FOUND",
        `The preset image ${path} is not in the data dir: import its preset again with the ` +
          'image (docs/presets.md, "Imported images")',
      );
    }
  }
  const byId = new Map(files.map((f, i) => [f.id, located[i]!]));
  return { ...source, locate: (fileId: string) => Promise.resolve(byId.get(fileId)!) };
}

/**
 * Writes the show file of `projectId` to `path` on this machine: a temp file
 * beside it (`<path>.partial`, one a killed export left removed), synced, then
 * renamed, so `path` is a whole show file or untouched.
 */
async function exportToPath(core: Core, projectId: string, path: string) {
  if (!path.startsWith("/")) {
    throw new CueportError("INVALID_MESSAGE", `Invalid path: "${path}" is not absolute`, {
      field: "path",
    });
  }
  const source = await locatedSource(core, projectId);
  try {
    const bytes = await writeShowFileWhole(path, (out) => writeShow(source, out));
    return {
      ok: true as const,
      projectId: source.project.id,
      name: source.project.name,
      path,
      bytes,
    };
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.PermissionDenied) {
      throw new CueportError(
        "INVALID_MESSAGE",
        `Invalid path: cannot write "${path}": ${error.message}`,
        {
          field: "path",
        },
      );
    }
    throw error;
  }
}

/**
 * The player's `show.import`, its refusals (a replace of a Project that plays)
 * EDIT_REFUSED as those of `project.delete`: an import is an edit.
 */
async function importShow(core: Core, params: Parameters<Core["importShow"]>[0]) {
  try {
    return { ok: true as const, ...await core.importShow(params) };
  } catch (error) {
    if (!(error instanceof CueportError) || error.code !== "ACTION_FAILED") throw error;
    throw new CueportError("EDIT_REFUSED", error.message, error.details);
  }
}

/** Stages an uploaded show file, imports it, and removes the staged file whatever happens. */
async function importUpload(core: Core, input: ShowUploadInput) {
  core.requireReady();
  const staged = await stageUpload(input.chunks, {
    dir: await core.stagingFolder(),
    maxBytes: input.maxBytes,
  });
  try {
    return await importShow(core, {
      path: staged.path,
      replace: input.isReplace,
      force: input.isForced,
      isUpload: true,
    });
  } finally {
    await Deno.remove(staged.path).catch(() => {});
  }
}

const Replace = z.boolean().default(false)
  .describe(
    "Replace the Project of the same id (it goes as a delete does); default: a clashing id is renamed",
  );
const Force = z.boolean().default(false)
  .describe(
    "With replace: replace it even while any of its Clips or its Song plays or is paused (it stops); default: refused",
  );

/** Every show file operation. */
export const SHOW_OPERATIONS: readonly AnyOperation[] = [
  defineOperation({
    name: "projectExport",
    since: "6.0",
    summary:
      "A Project as a show file: a zip with its project.json, presets.json, media and a manifest of sizes and sha256, streamed",
    tag: "projects",
    kind: "media",
    transports: ["http"],
    scope: "edit",
    input: z.strictObject({ projectId: z.string().min(1) }),
    output: z.instanceof(ShowDownload),
    produces: [SHOW_MEDIA_TYPE],
    run: ({ core, signal }, input) => exportStream(core, input.projectId, signal),
  }),
  defineOperation({
    name: "projectExportFile",
    since: "6.0",
    summary:
      "Write a Project's show file to a path on the show machine (atomically: temp, then rename)",
    tag: "projects",
    kind: "edit",
    transports: ["mcp"],
    scope: "edit",
    isLocalOnly: true,
    input: z.strictObject({
      projectId: z.string().min(1).describe("The Project to export"),
      path: z.string().min(1).max(4096).describe(
        "Absolute path of the zip to write, e.g. /home/show/Tour.cueport.zip",
      ),
    }),
    output: z.strictObject({
      ok: z.literal(true),
      projectId: z.string(),
      name: z.string(),
      path: z.string(),
      bytes: z.number().int(),
    }),
    run: ({ core }, input) => exportToPath(core, input.projectId, input.path),
  }),
  defineOperation({
    name: "projectImport",
    since: "6.0",
    summary:
      "Import a show file (raw application/zip body): checked whole before anything lands; a clashing id is renamed unless ?replace=true (refused while that Project plays unless ?force=true)",
    tag: "projects",
    kind: "edit",
    transports: ["http"],
    scope: "edit",
    // The query as documented; the handler gets the stream the route reads (`parse`).
    input: z.strictObject({
      replace: z.enum(["true", "false"]).optional()
        .describe("true: replace the Project of the same id; default: a clashing id is renamed"),
      force: z.enum(["true", "false"]).optional()
        .describe(
          "true: with replace, replace it even while it plays or is paused (it stops); default: refused",
        ),
    }) as unknown as z.ZodType<ShowUploadInput>,
    parse: (raw) => raw as ShowUploadInput,
    output: ShowImportView,
    run: ({ core }, input: ShowUploadInput) => importUpload(core, input),
  }),
  defineOperation({
    name: "projectImportFile",
    since: "6.0",
    summary: "Import a show file from a path on the show machine",
    tag: "projects",
    kind: "edit",
    transports: ["mcp"],
    scope: "edit",
    isLocalOnly: true,
    input: z.strictObject({
      path: z.string().min(1).max(4096).describe(
        "Absolute path of a .cueport.zip on the show machine",
      ),
      replace: Replace,
      force: Force,
    }),
    output: ShowImportView,
    run: ({ core }, input) => importShow(core, input),
  }),
];
