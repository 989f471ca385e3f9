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

/** Routes registered with Hono as one path: they differ only in a suffixed parameter's extension. */
export interface SuffixGroup<T> {
  method: string;
  /** The path as Hono matches it, each suffixed parameter admitting every member's extension. */
  path: string;
  /** In the table's order; a request goes to the first whose extensions its parameters end in. */
  members: T[];
}

/**
 * The routes as Hono registrations, in the table's order: `/thumbnails/:projectId/:fileId.jpg`,
 * `.jpeg` and `.png` become one `:fileId{.+\.(?:jpg|jpeg|png)}`. Hono's fastest router
 * (`RegExpRouter`) refuses two patterns that differ only in a parameter's pattern, and its
 * `SmartRouter` then falls back to the trie router for every route (docs/load.md).
 */
export function suffixGroups<T extends { method: string; path: string }>(
  routes: readonly T[],
): SuffixGroup<T>[] {
  type Group = { first: T; extensions: Map<string, Set<string>>; members: T[] };
  const groups = new Map<string, Group>();
  for (const route of routes) {
    const key = `${route.method} ${
      route.path.replace(SUFFIXED, (_m, name: string) => `:${name}.`)
    }`;
    const group: Group = groups.get(key) ?? { first: route, extensions: new Map(), members: [] };
    groups.set(key, group);
    group.members.push(route);
    for (const [name, ext] of Object.entries(suffixesOf(route.path) ?? {})) {
      group.extensions.set(name, (group.extensions.get(name) ?? new Set()).add(ext.slice(1)));
    }
  }
  return [...groups.values()].map(({ first, extensions, members }) => ({
    method: first.method,
    path: members.length === 1 ? honoPath(first.path) : first.path.replace(
      SUFFIXED,
      (_m, name: string) => `:${name}{.+\\.(?:${[...extensions.get(name)!].join("|")})}`,
    ),
    members,
  }));
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
