/**
 * The web remote: a page for phones and tablets served at `/` of the HTTP
 * port, using nothing but the public API. Every asset is inside the program
 * (text imports, which `deno compile` embeds), sent gzip-compressed when the
 * browser accepts it and revalidated with ETags.
 * @module
 */
import { gzipSync } from "node:zlib";
import indexHtml from "./page/index.html" with { type: "text" };
import styleCss from "./page/style.css" with { type: "text" };
import appJs from "./page/app.js" with { type: "text" };
import apiJs from "./page/api.js" with { type: "text" };
import liveJs from "./page/live.js" with { type: "text" };
import viewsJs from "./page/views.js" with { type: "text" };
import groupJs from "./page/group.js" with { type: "text" };
import showsJs from "./page/shows.js" with { type: "text" };
import midiJs from "./page/midi.js" with { type: "text" };
import gesturesJs from "./page/gestures.js" with { type: "text" };
import previewJs from "./page/preview.js" with { type: "text" };
import previewLoopJs from "./page/preview_loop.js" with { type: "text" };
import preactJs from "htm/preact/standalone" with { type: "text" };
import { PICTURE_SIZE } from "../../protocol/pictures.ts";
import { VELOCITY } from "../../protocol/action_rules.ts";

export { lanAddresses, remoteUrls } from "./urls.ts";

/** The page's module of the picture sizes the API takes, written from `protocol/pictures.ts`. */
function picturesJs(): string {
  return [
    "// The range of a picture's size (a thumbnail's side, a preview's longer side) that the API",
    "// takes, in pixels: written by the service from its one declaration (protocol/pictures.ts),",
    "// so the page asks for no size the API would refuse.",
    `export const PICTURE_SIZE = ${JSON.stringify(PICTURE_SIZE)};`,
    "",
  ].join("\n");
}

/** The page's module of the action rules it uses, written from `protocol/action_rules.ts`. */
export function actionRulesJs(): string {
  return [
    "// The action rules the page uses (a trigger's velocity: its range and default), written by",
    "// the service from their one declaration (protocol/action_rules.ts), so the page sends no",
    "// value the API would refuse.",
    `export const VELOCITY = ${JSON.stringify(VELOCITY)};`,
    "",
  ].join("\n");
}

/** One asset: its bytes, plain and compressed, and its tag. */
interface Asset {
  type: string;
  plain: Uint8Array;
  gzip: Uint8Array;
  etag: string;
}

const JS = "text/javascript; charset=utf-8";

/** The files of the page by URL path; `/` is the page itself. */
const SOURCES: Record<string, { type: string; text: string }> = {
  "/": { type: "text/html; charset=utf-8", text: indexHtml },
  "/remote/style.css": { type: "text/css; charset=utf-8", text: styleCss },
  "/remote/app.js": { type: JS, text: appJs },
  "/remote/api.js": { type: JS, text: apiJs },
  "/remote/live.js": { type: JS, text: liveJs },
  "/remote/views.js": { type: JS, text: viewsJs },
  "/remote/group.js": { type: JS, text: groupJs },
  "/remote/shows.js": { type: JS, text: showsJs },
  "/remote/midi.js": { type: JS, text: midiJs },
  "/remote/gestures.js": { type: JS, text: gesturesJs },
  "/remote/preview.js": { type: JS, text: previewJs },
  "/remote/preview_loop.js": { type: JS, text: previewLoopJs },
  // The picture sizes the API takes, from their one declaration (`protocol/pictures.ts`).
  "/remote/pictures.js": { type: JS, text: picturesJs() },
  // The action rules the page uses, from their one declaration (`protocol/action_rules.ts`).
  "/remote/action_rules.js": { type: JS, text: actionRulesJs() },

  "/remote/preact.js": { type: JS, text: preactJs },
};

/** The asset paths the page is made of (`/` first). */
export const REMOTE_PATHS: readonly string[] = Object.keys(SOURCES);

/** FNV-1a, 32 bits: enough to tell versions of a file apart in an ETag. */
function fnv1a(bytes: Uint8Array): string {
  let hash = 0x811c9dc5;
  for (const byte of bytes) hash = Math.imul(hash ^ byte, 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, "0");
}

const assets = new Map<string, Asset>();

/** The asset at `path`, compressed on first use (about 1 ms for all of them). */
function assetAt(path: string): Asset | undefined {
  let asset = assets.get(path);
  if (asset) return asset;
  const source = SOURCES[path];
  if (!source) return undefined;
  const plain = new TextEncoder().encode(source.text);
  asset = {
    type: source.type,
    plain,
    gzip: new Uint8Array(gzipSync(plain, { level: 9 })),
    etag: `"${fnv1a(plain)}-${plain.length.toString(36)}"`,
  };
  assets.set(path, asset);
  return asset;
}

/** Whether an `If-None-Match` header names `etag` (a list, `*`, or weak forms). */
function matchesTag(header: string, etag: string): boolean {
  return header.split(",").some((tag) => {
    const t = tag.trim();
    return t === "*" || t === etag || t === `W/${etag}`;
  });
}

/**
 * The page keeps to its own origin, plus the WebSocket port (any `ws:`: the
 * port is learned from `/api/v1/info`) and thumbnails fetched as blobs.
 */
const PAGE_HEADERS = {
  "content-security-policy": "default-src 'self'; connect-src 'self' ws: wss:; " +
    "img-src 'self' blob: data:; style-src 'self'; base-uri 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

/**
 * The answer to a request for the page or one of its assets (GET or HEAD),
 * or undefined when the request is for something else (the API).
 */
export function remotePage(request: Request): Response | undefined {
  if (request.method !== "GET" && request.method !== "HEAD") return undefined;
  // The path without parsing a URL: every API request passes here first.
  const url = request.url;
  const start = url.indexOf("/", url.indexOf("//") + 2);
  const query = url.indexOf("?", start);
  const path = start < 0 ? "/" : query < 0 ? url.slice(start) : url.slice(start, query);
  if (path !== "/" && !path.startsWith("/remote/")) return undefined;
  const asset = assetAt(path);
  if (!asset) return undefined;
  const headers: Record<string, string> = {
    ...PAGE_HEADERS,
    "content-type": asset.type,
    etag: asset.etag,
    // Always revalidated (a 304 costs one round trip on the LAN), so an upgraded service
    // never runs with a stale page.
    "cache-control": "no-cache",
    vary: "Accept-Encoding",
  };
  const ifNoneMatch = request.headers.get("if-none-match");
  if (ifNoneMatch !== null && matchesTag(ifNoneMatch, asset.etag)) {
    return new Response(null, { status: 304, headers });
  }
  const isGzip = /\bgzip\b/i.test(request.headers.get("accept-encoding") ?? "");
  const body = isGzip ? asset.gzip : asset.plain;
  if (isGzip) headers["content-encoding"] = "gzip";
  headers["content-length"] = String(body.length);
  return new Response(request.method === "HEAD" ? null : body as Uint8Array<ArrayBuffer>, {
    headers,
  });
}
