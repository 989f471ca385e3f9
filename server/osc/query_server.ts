/**
 * The OSCQuery server (VidVox's proposal) on its own port (setting
 * `oscQueryPort`, default 17737): `GET /` and `GET /<path>` the namespace,
 * `?HOST_INFO`, `?VALUE` and the other attributes; `LISTEN`/`IGNORE` over a
 * WebSocket on the same port, which then receives the listened addresses'
 * changes as binary OSC messages. The same senders as on the OSC port may
 * ask; anyone else gets 401.
 * @module
 */
import type { Core, UpdateBatch } from "../core/mod.ts";
import { normalizeAddress } from "../net/mod.ts";
import { batchFeedback, currentFeedback } from "./feedback.ts";
import { buildNamespace, nodeAt, type QueryNode } from "./query_namespace.ts";
import { encodeMessage } from "./replies.ts";

/** Options of the OSCQuery server. */
export interface OscQueryOptions {
  hosts: readonly string[];
  /** 0 picks a free port (the same on every host). */
  port: number;
  /** The OSC port it describes. */
  oscPort: () => number;
  /** Whether a sender at this address may ask (the OSC port's rule). */
  isAllowed: (address: string) => boolean;
  log?: (message: string) => void;
}

const ATTRIBUTES = new Set([
  "FULL_PATH",
  "CONTENTS",
  "TYPE",
  "ACCESS",
  "RANGE",
  "VALUE",
  "DESCRIPTION",
]);

/** Most addresses one WebSocket client may listen to. */
const MAX_LISTENS = 1024;

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json" },
  });
}

/** The OSCQuery server. */
export class OscQueryServer {
  #core: Core;
  #o: OscQueryOptions;
  #servers: Deno.HttpServer<Deno.NetAddr>[] = [];
  #listeners = new Map<WebSocket, Set<string>>();
  #unsubscribe: () => void;
  /** The bound port. */
  readonly port: number;

  private constructor(core: Core, options: OscQueryOptions) {
    this.#core = core;
    this.#o = options;
    let port = options.port;
    let firstError: unknown = null;
    for (const hostname of options.hosts) {
      try {
        const server = Deno.serve(
          { hostname, port, onListen: () => {} },
          (request, info) => this.#handle(request, info.remoteAddr.hostname),
        );
        port = server.addr.port;
        this.#servers.push(server);
      } catch (error) {
        firstError ??= error;
        options.log?.(`OSCQuery ${hostname} port ${port} not bound: ${(error as Error).message}`);
      }
    }
    if (this.#servers.length === 0) throw firstError;
    this.port = port;
    this.#unsubscribe = core.bus.subscribe((batch) => this.#push(batch));
  }

  /**
   * Binds the port on every host.
   * @throws the first bind error when no host can be bound
   */
  static listen(core: Core, options: OscQueryOptions): OscQueryServer {
    return new OscQueryServer(core, options);
  }

  /** Stops serving and closes the WebSockets. */
  async close(): Promise<void> {
    this.#unsubscribe();
    for (const socket of this.#listeners.keys()) socket.close();
    this.#listeners.clear();
    await Promise.all(this.#servers.map((s) => s.shutdown()));
  }

  #handle(request: Request, peer: string): Response {
    if (!this.#o.isAllowed(normalizeAddress(peer))) {
      return json({
        error: {
          code: "AUTHENTICATION_FAILED",
          message: "This address may not send OSC: pair it with /connect on the OSC port first",
        },
      }, 401);
    }
    if (request.headers.get("upgrade")?.toLowerCase() === "websocket") {
      return this.#upgrade(request);
    }
    if (request.method !== "GET") {
      return json({ error: { code: "METHOD_NOT_ALLOWED", message: "OSCQuery answers GET" } }, 405);
    }
    const url = new URL(request.url);
    const query = url.search.slice(1);
    if (query === "HOST_INFO") return json(this.#hostInfo());
    const node = nodeAt(buildNamespace(this.#core.model), decodeURIComponent(url.pathname));
    if (!node) {
      return json({ error: { code: "NOT_FOUND", message: `No OSC address ${url.pathname}` } }, 404);
    }
    if (query === "") return json(node);
    if (!ATTRIBUTES.has(query)) {
      return json(
        { error: { code: "INVALID_MESSAGE", message: `Unknown attribute ${query}` } },
        400,
      );
    }
    const value = node[query as keyof QueryNode];
    // The proposal: an attribute the node has not is 204.
    return value === undefined ? new Response(null, { status: 204 }) : json({ [query]: value });
  }

  #hostInfo() {
    return {
      NAME: "Cueport",
      OSC_PORT: this.#o.oscPort(),
      OSC_TRANSPORT: "UDP",
      EXTENSIONS: {
        ACCESS: true,
        VALUE: true,
        RANGE: true,
        DESCRIPTION: true,
        TYPE: true,
        LISTEN: true,
        PATH_CHANGED: false,
        PATH_ADDED: false,
        PATH_REMOVED: false,
        PATH_RENAMED: false,
        TAGS: false,
        EXTENDED_TYPE: false,
        UNIT: false,
        CRITICAL: false,
        CLIPMODE: false,
        OVERLOADS: false,
        HTML: false,
      },
    };
  }

  #upgrade(request: Request): Response {
    const { socket, response } = Deno.upgradeWebSocket(request);
    const listens = new Set<string>();
    socket.onopen = () => this.#listeners.set(socket, listens);
    socket.onclose = () => this.#listeners.delete(socket);
    socket.onmessage = (event) => {
      let command: { COMMAND?: unknown; DATA?: unknown };
      try {
        command = JSON.parse(String(event.data));
      } catch {
        return;
      }
      const path = typeof command.DATA === "string" ? command.DATA : null;
      if (!path) return;
      if (command.COMMAND === "LISTEN" && listens.size < MAX_LISTENS) {
        listens.add(path);
        // The current value at once, as a subscriber on the OSC port gets it.
        const now = currentFeedback(this.#core.model, null).find((f) => f.address === path);
        if (now) socket.send(encodeMessage(now.address, now.args));
      } else if (command.COMMAND === "IGNORE") listens.delete(path);
    };
    return response;
  }

  #push(batch: UpdateBatch): void {
    if (this.#listeners.size === 0) return;
    const feedback = batchFeedback(this.#core.model, batch.updates) ??
      currentFeedback(this.#core.model, null);
    const active = this.#core.model.activeProjectId;
    for (const message of feedback) {
      if (message.projectId !== null && message.projectId !== active) continue;
      let bytes: Uint8Array | null = null;
      for (const [socket, listens] of this.#listeners) {
        if (!listens.has(message.address) || socket.readyState !== WebSocket.OPEN) continue;
        bytes ??= encodeMessage(message.address, message.args);
        socket.send(bytes);
      }
    }
  }
}
