/**
 * The edit routes: `POST /api/v1/edit`, the schema endpoints generated from
 * the edit catalog, and `POST /api/v1/files/upload`.
 * @module
 */
import { z } from "zod";
import { editJsonSchema, EDITS, EDITS_BY_NAME } from "../../protocol/edits/mod.ts";

import { isLocalAddress } from "../auth/mod.ts";
import { CueportError, EditBody, stableAnswer } from "../core/mod.ts";
import { multipartBoundary, readFilePart } from "./multipart.ts";
import type { RouteInput, RouteSpec } from "./table.ts";

const EditOutcomeView = z.strictObject({
  name: z.string(),
  message: z.string(),
  created: z.record(z.string(), z.string()).optional(),
  result: z.unknown().optional(),
});

/** The answer of an edit or an upload. */
export const EditResultView = z.strictObject({
  ok: z.literal(true),
  projectId: z.string(),
  revision: z.number().int(),
  edits: z.array(EditOutcomeView),
  changed: z.strictObject({
    clips: z.array(z.string()),
    songs: z.array(z.string()),
    fields: z.array(z.string()),
    presets: z.array(z.string()),
  }),
  history: z.strictObject({ undo: z.number().int(), redo: z.number().int() }),
});

const EditSchemaView = z.strictObject({
  name: z.string(),
  group: z.string(),
  summary: z.string(),
  localOnly: z.boolean(),
  params: z.record(z.string(), z.unknown()).describe("JSON Schema of the params object"),
});

const UploadQuery = z.object({
  name: z.string().optional().describe("File name (required for a raw body)"),
  projectID: z.string().optional().describe("Target Project; omitted means the active one"),
});

type EditSchemaView = z.infer<typeof EditSchemaView>;

/**
 * The schema views, each built on first use and then answered as the same
 * (stable) object: the catalog never changes, and zod's JSON Schema
 * conversion cost about 3 ms and a megabyte of garbage per full list.
 */
const schemaViews = new Map<string, EditSchemaView>();
let allSchemaViews: { edits: EditSchemaView[] } | undefined;

function schemaOf(name: string): EditSchemaView {
  const cached = schemaViews.get(name);
  if (cached) return cached;
  const spec = EDITS_BY_NAME.get(name);
  if (!spec) {
    throw new CueportError(
      "NOT_FOUND",
      `No edit named "${name}": GET /api/v1/edit/schema lists them`,
    );
  }
  const view = stableAnswer({
    name: spec.name,
    group: spec.group,
    summary: spec.summary,
    localOnly: spec.isLocalOnly === true,
    params: editJsonSchema(spec),
  });
  schemaViews.set(spec.name, view);
  return view;
}

/**
 * The body of an upload, ended with REQUEST_TIMEOUT once a read has waited
 * `idleMs` for the client's next byte. Time the server spends elsewhere
 * (writing to disk, the import) does not count. One timer per upload, not
 * one per chunk: when it fires early (bytes came since) it is re-armed for
 * the time left; `close` clears it and cancels what is left unread.
 */
function idleLimited(
  body: ReadableStream<Uint8Array>,
  idleMs: number,
): { body: ReadableStream<Uint8Array>; close(): void } {
  const reader = body.getReader();
  /** When the pending read started; -1 while none is pending. */
  let waitingSince = -1;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let isTimedOut = false;
  const check = () => {
    timer = undefined;
    if (waitingSince < 0) return; // the next read arms it again
    const idle = performance.now() - waitingSince;
    if (idle < idleMs) {
      timer = setTimeout(check, idleMs - idle);
      return;
    }
    isTimedOut = true;
    reader.cancel().catch(() => {});
  };
  const close = () => {
    clearTimeout(timer);
    timer = undefined;
    reader.cancel().catch(() => {});
  };
  const limited = new ReadableStream<Uint8Array>({
    async pull(controller) {
      waitingSince = performance.now();
      timer ??= setTimeout(check, idleMs);
      const { value, done } = await reader.read().catch((error: unknown) => {
        // A client that goes away mid-upload is no server error (nor a stack in the log).
        const reason = error instanceof Error ? error.message : String(error);
        throw new CueportError("INVALID_MESSAGE", `Invalid body: the upload broke off: ${reason}`, {
          field: "body",
        });
      }).finally(() => waitingSince = -1);
      if (isTimedOut) {
        throw new CueportError(
          "REQUEST_TIMEOUT",
          `Upload stalled: no byte for ${idleMs} ms (setting uploadIdleTimeoutMs)`,
          { limit: idleMs },
        );
      }
      if (done) {
        clearTimeout(timer);
        controller.close();
      } else controller.enqueue(value);
    },
    cancel: close,
  }, { highWaterMark: 0 });
  return { body: limited, close };
}

async function upload(input: RouteInput, options: EditRoutesOptions) {
  const { maxUploadBytes: maxBytes, uploadIdleTimeoutMs: idleMs = 30_000 } = options;
  const request = input.request!;
  // A malformed multipart type is refused before a byte of the body is read.
  const boundary = multipartBoundary(request.headers.get("content-type"));
  const length = Number(request.headers.get("content-length") ?? NaN);
  if (length > maxBytes) {
    throw new CueportError(
      "PAYLOAD_TOO_LARGE",
      `Upload too large: ${length} bytes, over ${maxBytes} (setting maxUploadBytes)`,
      { limit: maxBytes },
    );
  }
  if (!request.body) {
    throw new CueportError("INVALID_MESSAGE", "Invalid body: empty", { field: "body" });
  }
  let name = input.query.name;
  if (!boundary && !name) {
    throw new CueportError(
      "INVALID_MESSAGE",
      "Invalid name: a raw upload needs ?name=<file name> (or send multipart/form-data with a file field)",
      { field: "name" },
    );
  }
  const body = idleLimited(request.body, idleMs);
  try {
    let chunks: AsyncIterable<Uint8Array> = body.body;
    if (boundary) {
      const part = await readFilePart(body.body, { boundary, field: "file" });
      name ??= part.filename;
      chunks = part.chunks;
    }
    return await input.core.importUpload(chunks, {
      name: name || "upload",
      projectId: input.query.projectID ?? null,
      maxBytes,
      expectedBytes: Number.isFinite(length) ? length : null,
    });
  } finally {
    body.close();
  }
}

/** Options of `editRoutes`. */
export interface EditRoutesOptions {
  /** Largest upload accepted, bytes (setting maxUploadBytes). */
  maxUploadBytes: number;
  /**
   * An upload whose client sends no byte for this long is ended with 408
   * REQUEST_TIMEOUT, its staged bytes removed, ms (setting uploadIdleTimeoutMs; default 30000).
   */
  uploadIdleTimeoutMs?: number;
}

/**
 * The edit routes: `POST /api/v1/edit`, the schema endpoints, and
 * `POST /api/v1/files/upload` with its size limit and idle timeout.
 */
export function editRoutes(options: EditRoutesOptions): RouteSpec[] {
  return [
    {
      method: "POST",
      path: "/api/v1/edit",
      summary: "Apply one edit, or an atomic batch (all or none, one undo step)",
      tag: "edits",
      auth: true,
      scope: "edit",
      body: EditBody,
      response: EditResultView,
      idempotent: true,
      handle: ({ core, body, address, retry }) =>
        core.runEdit(body, { isLocal: isLocalAddress(address), ...(retry ? { retry } : {}) }),
    },
    {
      method: "GET",
      path: "/api/v1/edit/schema",
      summary: "Every edit with its group, summary and parameters as JSON Schema",
      tag: "edits",
      auth: true,
      response: z.strictObject({ edits: z.array(EditSchemaView) }),
      handle:
        () => (allSchemaViews ??= stableAnswer({ edits: EDITS.map((e) => schemaOf(e.name)) })),
    },
    {
      method: "GET",
      path: "/api/v1/edit/schema/:name",
      summary: "One edit's parameters as JSON Schema (descriptions, defaults, enums, ranges)",
      tag: "edits",
      auth: true,
      response: EditSchemaView,
      handle: ({ params }) => schemaOf(params.name!),
    },
    {
      method: "POST",
      path: "/api/v1/files/upload",
      summary:
        "Upload a media file into a Project: multipart/form-data with a file field, or a raw body with ?name=",
      tag: "edits",
      auth: true,
      scope: "edit",
      query: UploadQuery,
      rawBody: {
        "multipart/form-data": {
          type: "object",
          properties: { file: { type: "string", contentMediaType: "application/octet-stream" } },
          required: ["file"],
        },
        "application/octet-stream": {
          type: "string",
          contentMediaType: "application/octet-stream",
          description: "The file's bytes; name it with ?name=",
        },
      },
      response: EditResultView,
      handle: (input) => upload(input, options),
    },
  ];
}
