/**
 * The edit routes: `POST /api/v1/edit`, the schema endpoints generated from
 * the edit catalog, and `POST /api/v1/files/upload`.
 * @module
 */
import type { z } from "zod";
import { CueportError, operationNamed, type UploadInput, type UploadPart } from "../core/mod.ts";
import { walkingWav } from "../media/wav_chunks.ts";
import { type FilePart, multipartBoundary, readFilePart } from "./multipart.ts";
import { route, type RouteSpec, type RouteWire } from "./route.ts";
import { SETTING_DEFAULTS } from "../../protocol/settings.ts";

/**
 * The body of an upload, ended with REQUEST_TIMEOUT once a read has waited
 * `idleMs` for the client's next byte. Time the server spends elsewhere
 * (writing to disk, the import) does not count. One timer per upload, not
 * one per chunk: when it fires early (bytes came since) it is re-armed for
 * the time left; `close` clears it and cancels what is left unread. Shared
 * with the show file's import (`show_routes.ts`).
 */
export function idleLimited(
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

/**
 * An upload's body, refused before a byte is read when its announced length is over
 * `maxBytes` (413) or it has none; shared with the show file's import (`show_routes.ts`).
 * @throws {CueportError} PAYLOAD_TOO_LARGE, INVALID_MESSAGE
 */
export function announcedBody(
  request: Request,
  maxBytes: number,
): { body: ReadableStream<Uint8Array>; length: number } {
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
  return { body: request.body, length };
}

/** The file parts after `first`, each named by its file name, read in turn. */
async function* laterParts(first: FilePart): AsyncGenerator<UploadPart> {
  for (let part = await first.next?.(); part; part = await part.next?.()) {
    yield { name: part.filename, chunks: part.chunks };
  }
}

/** Decodes an upload (multipart or raw) and runs the upload operation on its bytes. */
async function upload(
  request: Request,
  wire: RouteWire,
  run: (input: UploadInput) => Promise<unknown>,
  options: EditRoutesOptions,
): Promise<unknown> {
  const {
    maxUploadBytes: maxBytes,
    uploadIdleTimeoutMs: idleMs = SETTING_DEFAULTS.uploadIdleTimeoutMs,
  } = options;
  // A malformed multipart type is refused before a byte of the body is read.
  const boundary = multipartBoundary(request.headers.get("content-type"));
  const { body: raw, length } = announcedBody(request, maxBytes);
  let name = wire.query.name;
  if (!boundary && !name) {
    throw new CueportError(
      "INVALID_MESSAGE",
      "Invalid name: a raw upload needs ?name=<file name> (or send multipart/form-data with a file field)",
      { field: "name" },
    );
  }
  const body = idleLimited(raw, idleMs);
  try {
    let chunks: AsyncIterable<Uint8Array> = body.body;
    let others: UploadInput["others"];
    if (boundary) {
      // Several file fields: a shader (.fs) and its IMPORTED images (docs/presets.md).
      const part = await readFilePart(body.body, { boundary, field: "file", isMany: true });
      name ??= part.filename;
      chunks = part.chunks;
      others = laterParts(part);
    }
    return await run({
      // A WAV bomb is refused at its chunk past the limit, not once all of it is staged.
      chunks: walkingWav(chunks),
      ...(others ? { others } : {}),
      name: name ?? "",
      projectID: wire.query.projectID,
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
   * REQUEST_TIMEOUT, its staged bytes removed, ms (setting uploadIdleTimeoutMs, and its default).
   */
  uploadIdleTimeoutMs?: number;
}

/**
 * The edit routes: `POST /api/v1/edit`, the schema endpoints, and
 * `POST /api/v1/files/upload` with its size limit and idle timeout.
 */
export function editRoutes(options: EditRoutesOptions): RouteSpec[] {
  return [
    route("POST", "/api/v1/edit", "edit"),
    route("GET", "/api/v1/edit/schema", "editSchemas"),
    route("GET", "/api/v1/edit/schema/:name", "editSchema"),
    route("POST", "/api/v1/files/upload", "upload", {
      query: operationNamed("upload").input as z.ZodObject,
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
      invoke: (request, wire, run) => upload(request, wire, run, options),
    }),
  ];
}
