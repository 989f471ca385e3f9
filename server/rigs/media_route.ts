/**
 * `GET /api/v1/group/media/<sha256>` (docs/rigs.md, "Media between rigs"):
 * a rig serves the group's media it holds to the other rigs, and to no one
 * else. A caller shows it is a rig of the group with the group's member
 * token (`Authorization: Bearer <token>`), which only clients of the group's
 * etcd can read; compared in constant time. Streamed from disk, one range
 * (`Range: bytes=a-b`) when asked. Mounted beside the routes (behind the same
 * Host check and rate limit), outside the catalog: no device grant opens it.
 * @module
 */
import { CueportError, type ErrorCodeName } from "../core/errors.ts";
import type { RigMedia } from "./media_copies.ts";
import { bearerOf, isSha256, parseRange, sameToken } from "./media_files.ts";

/** The route's path pattern, as the HTTP app mounts it. */
export const MEDIA_ROUTE = "/api/v1/group/media/:sha256";

/** Bytes read from disk per chunk of an answer. */
const CHUNK_BYTES = 1024 * 1024;

/** A handler mounted on the HTTP port (`HttpMount` of `server/routes/mod.ts`). */
export interface MediaMount {
  methods: readonly string[];
  path: string;
  handle(request: Request): Promise<Response>;
}

/** The mount of the route on the HTTP port. */
export function mediaMount(media: RigMedia): MediaMount {
  return {
    methods: ["GET", "HEAD"],
    path: MEDIA_ROUTE,
    handle: (request: Request) => serveMedia(media, request),
  };
}

/** The error answer of `code`. */
function refuse(code: ErrorCodeName, message: string, headers: HeadersInit = {}): Response {
  const error = new CueportError(code, message);
  return Response.json(error.toJSON(), { status: error.status, headers });
}

/** The answer to a caller without the member token. */
function membersOnly(): Response {
  return refuse(
    "GROUP_MEMBERS_ONLY",
    "The group's media is served to the rigs of the group only: send the group's member token (Authorization: Bearer, read from the group's etcd)",
    { "www-authenticate": "Bearer" },
  );
}

/** Answers one request of the route. */
export async function serveMedia(media: RigMedia, request: Request): Promise<Response> {
  const sha256 = new URL(request.url).pathname.split("/").pop() ?? "";
  const given = bearerOf(request.headers.get("authorization"));
  // No token, no etcd call: a caller without one learns nothing of etcd.
  if (given === null) return membersOnly();
  let token: string;
  try {
    token = await media.token();
  } catch (error) {
    return refuse(
      "GROUP_NO_QUORUM",
      `This rig cannot read its group's member token from etcd (${
        (error as Error).message
      }): ask another rig`,
    );
  }
  if (!sameToken(given, token)) return membersOnly();
  const size = isSha256(sha256) ? await media.store.size(sha256) : null;
  if (size === null) {
    return refuse("NOT_FOUND", `This rig holds no media of SHA-256 "${sha256}"`);
  }
  const range = parseRange(request.headers.get("range"), size);
  if (range === "unsatisfiable") {
    return refuse("RANGE_NOT_SATISFIABLE", `Range not satisfiable: the file has ${size} bytes`, {
      "content-range": `bytes */${size}`,
    });
  }
  const { start, end } = range ?? { start: 0, end: size - 1 };
  const headers = {
    "content-type": "application/octet-stream",
    "content-length": String(end - start + 1),
    "accept-ranges": "bytes",
    etag: `"${sha256}"`,
    ...(range ? { "content-range": `bytes ${start}-${end}/${size}` } : {}),
  };
  const status = range ? 206 : 200;
  if (request.method === "HEAD") return new Response(null, { status, headers });
  const body = await fileBody(media.store.path(sha256), start, end - start + 1);
  return new Response(body, { status, headers });
}

/** `length` bytes of the file at `path` from `start`, read as the answer is sent. */
async function fileBody(path: string, start: number, length: number): Promise<ReadableStream> {
  const file = await Deno.open(path, { read: true });
  try {
    await file.seek(start, Deno.SeekMode.Start);
  } catch (error) {
    file.close();
    throw error;
  }
  let left = length;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const chunk = new Uint8Array(Math.min(CHUNK_BYTES, left));
      const n = left > 0 ? await file.read(chunk) : null;
      if (n === null) {
        file.close();
        controller.close();
        return;
      }
      left -= n;
      controller.enqueue(chunk.subarray(0, n));
    },
    cancel() {
      file.close();
    },
  }, { highWaterMark: 0 });
}
