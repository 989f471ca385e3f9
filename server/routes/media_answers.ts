/**
 * The HTTP form of the media operations' answers: image bytes with their
 * type, a strong `ETag` and `Cache-Control`, or 304 when `If-None-Match`
 * named them; and the paths whose last part ends in a fixed extension
 * (`/thumbnails/:projectId/:fileId.jpg`).
 * @module
 */
import { MediaImage, type MediaNotModified } from "../core/mod.ts";

/**
 * Clients keep a picture and ask again with `If-None-Match` (a 304 costs a
 * few bytes): the file behind the same URL may change at any time.
 */
const CACHE_CONTROL = "private, no-cache";

/** The answer of a media operation. */
export function mediaResponse(answer: MediaImage | MediaNotModified): Response {
  const headers: Record<string, string> = { etag: answer.etag, "cache-control": CACHE_CONTROL };
  if (!(answer instanceof MediaImage)) return new Response(null, { status: 304, headers });
  headers["content-type"] = answer.contentType;
  headers["x-cueport-origin"] = answer.origin;
  return new Response(answer.bytes, { headers });
}

/** A path parameter with a fixed extension: `:fileId.jpg`. */
const SUFFIXED = /:([A-Za-z]+)(\.[a-z0-9]+)(?=\/|$)/g;

/**
 * The path as Hono matches it: `:fileId.jpg` becomes a parameter that must
 * end in `.jpg` (`:fileId{.+\.jpg}`); other paths are as they are.
 */
export function honoPath(path: string): string {
  return path.replace(SUFFIXED, (_m, name: string, ext: string) => `:${name}{.+\\${ext}}`);
}

/** The extensions of a path's suffixed parameters, by name (`{fileId: ".jpg"}`); null when none. */
export function suffixesOf(path: string): Record<string, string> | null {
  const found = [...path.matchAll(SUFFIXED)];
  return found.length === 0 ? null : Object.fromEntries(found.map((m) => [m[1]!, m[2]!]));
}

/** The params without their fixed extensions. */
export function withoutSuffixes(
  params: Record<string, string>,
  suffixes: Record<string, string>,
): Record<string, string> {
  const out = { ...params };
  for (const [name, ext] of Object.entries(suffixes)) {
    const value = out[name];
    if (value?.endsWith(ext)) out[name] = value.slice(0, -ext.length);
  }
  return out;
}
