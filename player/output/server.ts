/**
 * The output's own web server: loopback only, on a free port, under a random
 * path (an unguessable token), serving the page, its scripts, the Project's
 * media (with byte ranges) and one WebSocket to the page; and the editor
 * window's page (`editor.html`, on the same modules) with its own WebSocket, taken only while
 * an editor is open. Both sockets take only the server's own origin. All its files are
 * text imports, which `deno compile` embeds.
 * @module
 */
import indexHtml from "./page/index.html" with { type: "text" };
import pageJs from "./page/page.js" with { type: "text" };
import glJs from "./page/gl.js" with { type: "text" };
import clockJs from "./page/clock.js" with { type: "text" };
import compositorJs from "./page/compositor.js" with { type: "text" };
import layersJs from "./page/layers.js" with { type: "text" };
import soundJs from "./page/sound.js" with { type: "text" };
import isfPassesJs from "./page/isf_passes.js" with { type: "text" };
import renderScaleJs from "./page/render_scale.js" with { type: "text" };
import editorHtml from "./page/editor.html" with { type: "text" };
import editorJs from "./page/editor.js" with { type: "text" };
import editorUiJs from "./page/editor_ui.js" with { type: "text" };
import { assetType, fileResponse } from "./media_response.ts";

const ASSETS: Record<string, string> = {
  "": indexHtml,
  "page.js": pageJs,
  "gl.js": glJs,
  "clock.js": clockJs,
  "compositor.js": compositorJs,
  "layers.js": layersJs,
  "sound.js": soundJs,
  "isf_passes.js": isfPassesJs,
  "render_scale.js": renderScaleJs,
  "editor.html": editorHtml,
  "editor.js": editorJs,
  "editor_ui.js": editorUiJs,
};

/** A media file the page may load: where it is and its type. */
export interface MediaPath {
  path: string;
  mimeType: string;
}

/** What the server asks of the output. */
export interface OutputServerHost {
  /** The file behind `media/<projectId>/<fileId>`, or null. */
  media(projectId: string, fileId: string): MediaPath | null;
  /** A page connected: its socket (the previous one is closed by the host). */
  connected(socket: WebSocket): void;
  /** The editor window's page connected (`editor-ws`). */
  editorConnected(socket: WebSocket): void;
  /** Whether an editor is open: its socket is refused otherwise. */
  isEditorOpen(): boolean;
  /** A request came (the page loading its files: a sign the browser makes progress). */
  requested?(): void;
}

/** The running server. */
export interface OutputServer {
  /** The page's address: `http://127.0.0.1:<port>/<token>/`. */
  url: string;
  close(): Promise<void>;
}

/** Starts the server on 127.0.0.1, port 0. */
export function serveOutput(host: OutputServerHost): OutputServer {
  const token = crypto.randomUUID().replaceAll("-", "");
  const prefix = `/${token}/`;
  const controller = new AbortController();
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    signal: controller.signal,
    onListen: () => {},
  }, (request) => {
    const path = new URL(request.url).pathname;
    if (!path.startsWith(prefix)) return new Response("Not found", { status: 404 });
    host.requested?.();
    const rest = path.slice(prefix.length);
    if (rest === "ws" || rest === "editor-ws") {
      if (request.headers.get("upgrade") !== "websocket") {
        return new Response("WebSocket only", { status: 426 });
      }
      // Only the server's own pages (not another page of a browser, nor a name rebound to the
      // loopback); the editor's only while one is open.
      const origin = `http://127.0.0.1:${server.addr.port}`;
      const isOwn = request.headers.get("origin") === origin &&
        request.headers.get("host") === origin.slice("http://".length);
      if (!isOwn || (rest === "editor-ws" && !host.isEditorOpen())) {
        return new Response("Forbidden", { status: 403 });
      }
      const { socket, response } = Deno.upgradeWebSocket(request);
      if (rest === "ws") host.connected(socket);
      else host.editorConnected(socket);
      return response;
    }
    const media = /^media\/([A-Za-z0-9_-]+)\/([A-Za-z0-9_-]+)$/.exec(rest);
    if (media) {
      const file = host.media(media[1]!, media[2]!);
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
    async close() {
      controller.abort();
      await server.finished;
    },
  };
}
