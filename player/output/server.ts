/**
 * The output's own web server: loopback only, on a free port, under a random
 * path (an unguessable token), serving the page, its scripts, the Project's
 * media (with byte ranges) and one WebSocket to the page; and the editor
 * window's page (`editor.html`, on the same modules) with its own WebSocket, taken only while
 * an editor is open. Both sockets take only the server's own origin, and only a page that
 * offers the secret of the browser running now as its subprotocol (`cueport.<secret>`,
 * `rotateSecret`): a local program that knows the address, or sets any Origin, is refused at
 * the upgrade. All its files are text imports, which `deno compile` embeds.
 * @module
 */
import { timingSafeEqual } from "node:crypto";
import { PAGE_SECRET_PROTOCOL_PREFIX } from "../../protocol/socket_bounds.ts";
import indexHtml from "./page/index.html" with { type: "text" };
import pageJs from "./page/page.js" with { type: "text" };
import glJs from "./page/gl.js" with { type: "text" };
import clockJs from "./page/clock.js" with { type: "text" };
import frameTimeJs from "./page/frame_time.js" with { type: "text" };
import compositorJs from "./page/compositor.js" with { type: "text" };
import layersJs from "./page/layers.js" with { type: "text" };
import soundJs from "./page/sound.js" with { type: "text" };
import isfPassesJs from "./page/isf_passes.js" with { type: "text" };
import imageInputsJs from "./page/image_inputs.js" with { type: "text" };
import renderScaleJs from "./page/render_scale.js" with { type: "text" };
import framePacingJs from "./page/frame_pacing.js" with { type: "text" };
import regionJs from "./page/region.js" with { type: "text" };
import editorHtml from "./page/editor.html" with { type: "text" };
import editorJs from "./page/editor.js" with { type: "text" };
import editorUiJs from "./page/editor_ui.js" with { type: "text" };
import socketSecretJs from "./page/socket_secret.js" with { type: "text" };
import previewsJs from "./page/previews.js" with { type: "text" };
import midiJs from "./page/midi.js" with { type: "text" };
import { assetType, fileResponse } from "./media_response.ts";

/**
 * The pages' sockets' options. No ping deadline of Deno's own (`idleTimeout`, 30 s by default):
 * a page's silence is `PageHealth`'s to judge (60 s, progress first, `page_health.ts`). A
 * browser starved on a busy machine (load 50) that answers no ping for 30 s would have its socket
 * closed with 1001 and its page reloaded, a recording in it ended: slowness made an outage.
 */
export const PAGE_SOCKET = { idleTimeout: 0 } as const;

const ASSETS: Record<string, string> = {
  "": indexHtml,
  "page.js": pageJs,
  "gl.js": glJs,
  "clock.js": clockJs,
  "frame_time.js": frameTimeJs,
  "compositor.js": compositorJs,
  "layers.js": layersJs,
  "sound.js": soundJs,
  "isf_passes.js": isfPassesJs,
  "image_inputs.js": imageInputsJs,
  "render_scale.js": renderScaleJs,
  "frame_pacing.js": framePacingJs,
  "region.js": regionJs,
  "editor.html": editorHtml,
  "editor.js": editorJs,
  "editor_ui.js": editorUiJs,
  "socket_secret.js": socketSecretJs,
  "previews.js": previewsJs,
  "midi.js": midiJs,
};

/** A media file the page may load: where it is and its type. */
export interface MediaPath {
  /** The file's path. */
  path: string;
  /** Its MIME type, sent as its content type. */
  mimeType: string;
}

/** What the server asks of the output. */
export interface OutputServerHost {
  /** The file behind `media/<projectId>/<fileId>`, or null. */
  media(projectId: string, fileId: string): MediaPath | null;
  /** The stored `IMPORTED` image behind `preset-images/<file>`, or null (absent: none). */
  presetImage?(file: string): MediaPath | null;
  /** A page connected: its socket (the previous one is closed by the host). */
  connected(socket: WebSocket): void;
  /** The editor window's page connected (`editor-ws`). */
  editorConnected(socket: WebSocket): void;
  /** Whether an editor is open: its socket is refused otherwise. */
  isEditorOpen(): boolean;
  /**
   * Whether a page has the socket of `path` (connecting or connected): a second is refused at
   * the upgrade (absent: never).
   */
  isTaken?(path: "ws" | "editor-ws"): boolean;
  /** A request came (the page loading its files: a sign the browser makes progress). */
  requested?(): void;
  /**
   * A socket was refused at the upgrade: the kind counted (`refused`, `second page`) and why
   * (the host logs it, at most once a minute).
   */
  refused?(kind: RefusalKind, reason: string): void;
}

/** How the socket-fault log counts a socket refused at the upgrade. */
export type RefusalKind = "refused" | "second page";

/** The running server. */
export interface OutputServer {
  /** The page's address: `http://127.0.0.1:<port>/<token>/`. */
  url: string;
  /**
   * A new random secret, from now on the only one a socket is opened with (sockets opened
   * before stay): made at each browser start, handed to its pages as
   * `globalThis.cueportPageSecret` (`pageSecretScript`).
   */
  rotateSecret(): string;
  /** Stops serving; resolves once the server is closed. */
  close(): Promise<void>;
}

/**
 * The script that gives a page `secret` and the subprotocol's prefix (`page/socket_secret.js`
 * makes the subprotocol of both): run before the page's own (`initScript`).
 */
export function pageSecretScript(secret: string): string {
  return `globalThis.cueportPageSecret = ${JSON.stringify(secret)};\n` +
    `globalThis.cueportPageSecretPrefix = ${JSON.stringify(PAGE_SECRET_PROTOCOL_PREFIX)};`;
}

/** A new secret: 32 random bytes, as hex (a subprotocol token). */
function newSecret(): string {
  return Array.from(
    crypto.getRandomValues(new Uint8Array(32)),
    (b) => b.toString(16).padStart(2, "0"),
  )
    .join("");
}

/**
 * The subprotocol `request` offers that names `secret`, compared in constant time; null when
 * none does.
 */
function offeredSecret(request: Request, secret: string): string | null {
  const expected = new TextEncoder().encode(PAGE_SECRET_PROTOCOL_PREFIX + secret);
  const offered = (request.headers.get("sec-websocket-protocol") ?? "").split(",");
  let match: string | null = null;
  for (const protocol of offered.map((p) => p.trim())) {
    const bytes = new TextEncoder().encode(protocol);
    // Every offer is compared, whichever matched, so the time says nothing of the secret.
    if (bytes.length === expected.length && timingSafeEqual(bytes, expected)) match = protocol;
  }
  return match;
}

/**
 * Opens the page's (`ws`) or the editor's (`editor-ws`) socket: only for the server's own pages
 * (not another page of a browser, nor a name rebound to the loopback) offering the secret of
 * now; the editor's only while one is open; neither while a page has it.
 */
function upgrade(
  request: Request,
  path: "ws" | "editor-ws",
  context: { host: OutputServerHost; port: number; secret: string },
): Response {
  const { host } = context;
  if (request.headers.get("upgrade") !== "websocket") {
    return new Response("WebSocket only", { status: 426 });
  }
  const origin = `http://127.0.0.1:${context.port}`;
  const isOwn = request.headers.get("origin") === origin &&
    request.headers.get("host") === origin.slice("http://".length);
  const protocol = offeredSecret(request, context.secret);
  const refusal = !isOwn
    ? "another origin"
    : protocol === null
    ? "no secret, or not the one of the browser running now"
    : path === "editor-ws" && !host.isEditorOpen()
    ? "no editor open"
    : host.isTaken?.(path)
    ? "another page has it"
    : null;
  if (refusal !== null || protocol === null) {
    // An editor page of a closed editor retries: that is not a fault to say.
    if (refusal !== "no editor open") {
      const kind = refusal === "another page has it" ? "second page" : "refused";
      host.refused?.(kind, `the ${path} socket refused: ${refusal}`);
    }
    return new Response(`Forbidden: ${refusal}`, { status: 403 });
  }
  const { socket, response } = Deno.upgradeWebSocket(request, { protocol, ...PAGE_SOCKET });
  if (path === "ws") host.connected(socket);
  else host.editorConnected(socket);
  return response;
}

/**
 * The root's page: black, nothing else, no pointer (the window's first page, before the
 * player's; `docs/output.md`, "A clean picture").
 */
export const BLANK =
  '<!doctype html><meta name="color-scheme" content="dark"><title>Cueport</title>' +
  "<style>html{background:#000;cursor:none;overflow:hidden}body{margin:0}</style>";

/** Starts the server on 127.0.0.1, port 0. */
export function serveOutput(host: OutputServerHost): OutputServer {
  const token = crypto.randomUUID().replaceAll("-", "");
  let secret = newSecret();
  const prefix = `/${token}/`;
  const controller = new AbortController();
  const server: Deno.HttpServer<Deno.NetAddr> = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    signal: controller.signal,
    onListen: () => {},
  }, (request): Response | Promise<Response> => {
    const path = new URL(request.url).pathname;
    // The window's browser starts on the root (its address holds no secret) and is navigated
    // over its pipe: black until then, as the show's screen is.
    if (path === "/") return new Response(BLANK, { headers: { "content-type": "text/html" } });
    if (!path.startsWith(prefix)) return new Response("Not found", { status: 404 });
    host.requested?.();
    const rest = path.slice(prefix.length);
    if (rest === "ws" || rest === "editor-ws") {
      return upgrade(request, rest, { host, port: server.addr.port, secret });
    }
    const media = /^media\/([A-Za-z0-9_-]+)\/([A-Za-z0-9_-]+)$/.exec(rest);
    if (media) {
      const file = host.media(media[1]!, media[2]!);
      if (!file) return new Response("Not found", { status: 404 });
      return fileResponse(request, file.path, file.mimeType);
    }
    const image = /^preset-images\/([0-9a-f]{64}\.[a-z]{3,4})$/.exec(rest);
    if (image) {
      const file = host.presetImage?.(image[1]!);
      if (!file) return new Response("Not found", { status: 404 });
      return fileResponse(request, file.path, file.mimeType);
    }
    const asset = ASSETS[rest];
    if (asset === undefined) return new Response("Not found", { status: 404 });
    return new Response(asset, {
      headers: { "content-type": assetType(rest || "index.html"), "cache-control": "no-store" },
    });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}${prefix}`,
    rotateSecret() {
      secret = newSecret();
      return secret;
    },
    async close() {
      controller.abort();
      await server.finished;
    },
  };
}
