/**
 * The WebSocket transport (`ws://<host>:17734/v1`): upgrades, keeps the
 * clients, and fans each coalesced batch of state updates out to them.
 * @module
 */
import { checkRequestOrigin } from "../auth/hosts.ts";
import type { Authenticator } from "../auth/mod.ts";
import { Policy } from "../core/mod.ts";
import type { RateMeter } from "../auth/rate_limit.ts";
import { type Core, CueportError, type UpdateBatch } from "../core/mod.ts";
import { errorAnswer, type ServerWebSocket, upgradeWebSocket } from "../net/mod.ts";
import { type SharedBatch, SocketClient, type SocketLimits } from "./client.ts";
import { CloseReasons } from "./messages.ts";
import type { WsDialect } from "../net/dialect.ts";
import { v6Dialect } from "./dialect.ts";

export type { SocketLimits } from "./client.ts";
export { type CloseReason, CloseReasons } from "./messages.ts";

/** A silent client is pinged after this long, and closed if still silent after as long. */
const IDLE_TIMEOUT_MS = 30_000;
const encoder = new TextEncoder();

/** How often the sweep looks at clients that lag or wait, while any does. */
const SWEEP_MS = 25;

/** Options of the socket server. */
export interface SocketServerOptions {
  authenticator: Authenticator;
  /** The service's rate limit, as the WebSocket takes from it. */
  rateLimit: RateMeter;
  limits: SocketLimits;
  version: string;
  /** Where closes for a limit (budget, auth deadline, lag) are reported. */
  log?: (message: string) => void;
  /**
   * Where the faults it answers SERVER_ERROR for are logged, with their
   * stack (`unexpectedOf`); the service logs them at error, as every wire.
   */
  logFault?: (message: string) => void;
  /** Names of this machine accepted in the Host header. */
  hosts: ReadonlySet<string>;
  /** Browser origins allowed to connect (the CORS allow-list). */
  origins: readonly string[];
  /** The interface version it speaks (the 5.0.0 one, `server/legacy`); default 6.0. */
  dialect?: WsDialect;
  /** The HTTP port: the page it serves (the web remote) may connect, by any name of this machine. */
  pagePort?: () => number;
}

/** A Sec-WebSocket-Key: 16 bytes in base64 (RFC 6455 4.1), so exactly 24 characters. */
const KEY_PATTERN = /^[A-Za-z0-9+/]{22}==$/;

/** A header value as quoted in a message: at most 20 characters. */
function quoted(value: string): string {
  return JSON.stringify(value.length > 20 ? `${value.slice(0, 20)}...` : value);
}

function badUpgrade(header: string, message: string): CueportError {
  return new CueportError("INVALID_MESSAGE", `Invalid WebSocket upgrade: ${message}`, { header });
}

/**
 * What is wrong with an upgrade request (RFC 6455 4.2.1), or null. Checked
 * before `upgradeWebSocket`, which (like `Deno.upgradeWebSocket`) checks
 * nothing but the key's presence.
 */
function upgradeProblem(request: Request): CueportError | null {
  const connection = request.headers.get("connection");
  const hasUpgradeToken = connection?.split(",").some((token) =>
    token.trim().toLowerCase() === "upgrade"
  );
  if (!hasUpgradeToken) {
    return badUpgrade(
      "Connection",
      `the Connection header must include "upgrade", got ${
        connection === null ? "nothing" : quoted(connection)
      }`,
    );
  }
  const key = request.headers.get("sec-websocket-key");
  if (key === null) return badUpgrade("Sec-WebSocket-Key", "Sec-WebSocket-Key is missing");
  if (!KEY_PATTERN.test(key)) {
    return badUpgrade(
      "Sec-WebSocket-Key",
      `Sec-WebSocket-Key must be 16 bytes in base64, got ${quoted(key)}`,
    );
  }
  const version = request.headers.get("sec-websocket-version");
  if (version?.trim() !== "13") {
    return badUpgrade(
      "Sec-WebSocket-Version",
      `Sec-WebSocket-Version must be 13, got ${version === null ? "nothing" : quoted(version)}`,
    );
  }
  return null;
}

/** The WebSocket server. */
export class SocketServer {
  #core: Core;
  #options: SocketServerOptions;
  #policy: Policy;
  #clients = new Set<SocketClient>();
  #nextId = 1;
  #unsubscribe: () => void;
  /** The one timer behind every client's budget: runs while any client lags or waits. */
  #sweepTimer: ReturnType<typeof setInterval> | null = null;
  #isClosed = false;
  #dialect: WsDialect;

  /** Subscribes to the core's event bus. */
  constructor(core: Core, options: SocketServerOptions) {
    this.#core = core;
    this.#options = options;
    this.#dialect = options.dialect ?? v6Dialect(options.version);
    // Every socket client has authenticated before it runs anything: its grant decides the
    // scope, never the localhost exemption.
    this.#policy = new Policy({
      core,
      authenticator: options.authenticator,
      isLocalhostExempt: false,
    });
    this.#unsubscribe = core.bus.subscribe((batch) => this.#fanOut(batch));
  }

  /** Connected clients. */
  get clientCount(): number {
    return this.#clients.size;
  }

  /** Clients that fell behind and wait for a resync. */
  get laggingCount(): number {
    let n = 0;
    for (const client of this.#clients) if (client.isLagging) n++;
    return n;
  }

  /** Clients over their budget whose answers or messages wait for them to read. */
  get waitingCount(): number {
    let n = 0;
    for (const client of this.#clients) if (client.isWaiting) n++;
    return n;
  }

  /**
   * The handler of the WebSocket port (`ConnectionServer` with `isWebSocket`):
   * an upgrade request becomes a client, anything else gets a JSON error.
   */
  handle(request: Request, info: Pick<Deno.ServeHandlerInfo, "remoteAddr">): Response {
    const path = new URL(request.url).pathname;
    if (!this.#dialect.paths.includes(path)) {
      return errorAnswer(
        new CueportError(
          "NOT_FOUND",
          `No WebSocket endpoint at ${path}: ${this.#dialect.pathHint}`,
        ),
      );
    }
    try {
      checkRequestOrigin(request, {
        hosts: this.#options.hosts,
        origins: this.#options.origins,
        ...(this.#options.pagePort ? { pagePort: this.#options.pagePort() } : {}),
      });
    } catch (error) {
      return errorAnswer(error);
    }
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") {
      return errorAnswer(
        new CueportError(
          "CONNECTION_FAILED",
          "This is the WebSocket endpoint: connect with a WebSocket client",
        ),
        { status: 426, headers: { upgrade: "websocket" } },
      );
    }
    if (request.method !== "GET") {
      return errorAnswer(
        new CueportError(
          "METHOD_NOT_ALLOWED",
          `${request.method} is not allowed on ${path}: use GET`,
        ),
        { headers: { allow: "GET" } },
      );
    }
    const problem = upgradeProblem(request);
    if (problem) {
      // A refused version is answered with the one the server speaks (RFC 6455 4.2.2).
      const isVersion = problem.details?.header === "Sec-WebSocket-Version";
      return errorAnswer(problem, isVersion ? { headers: { "sec-websocket-version": "13" } } : {});
    }
    // Read the peer before upgrading: the upgrade takes the request over.
    const address = (info.remoteAddr as Deno.NetAddr).hostname;
    const upgraded = this.#upgrade(request);
    if (upgraded instanceof Response) return upgraded;
    this.#admit(upgraded.socket, address);
    return upgraded.response;
  }

  /** The request upgraded to a WebSocket, or the answer refusing it. */
  #upgrade(request: Request): { socket: ServerWebSocket; response: Response } | Response {
    try {
      return upgradeWebSocket(request, {
        idleTimeoutMs: IDLE_TIMEOUT_MS,
        // A message over maxMessageBytes is answered (or closes an unauthenticated client);
        // over this it is not even read: 1009. The largest message a client may hold is then
        // its budget, so its memory stays within the bound of `SocketClient`.
        maxPayload: Math.max(
          this.#options.limits.maxMessageBytes,
          this.#options.limits.maxBufferedBytes,
        ),
      });
    } catch (error) {
      // Only the request's headers can make it throw, and they were checked above: a 400 all
      // the same, should a check be added there, rather than a plain-text 500.
      return errorAnswer(
        new CueportError(
          "INVALID_MESSAGE",
          `Invalid WebSocket upgrade: ${(error as Error).message}`,
        ),
      );
    }
  }

  /** A client on an upgraded socket, from `address`. */
  #admit(socket: ServerWebSocket, address: string): void {
    const client = new SocketClient(socket, {
      id: `c${this.#nextId++}-${crypto.randomUUID().slice(0, 8)}`,
      address,
      core: this.#core,
      auth: this.#options.authenticator,
      policy: this.#policy,
      rateLimit: this.#options.rateLimit,
      limits: this.#options.limits,
      version: this.#options.version,
      watch: () => this.#watch(),
      // Once closing it is gone from here; its TCP connection closes at the end of the close
      // handshake, or after its deadline if the client does not read.
      forget: () => this.#clients.delete(client),
      log: this.#options.log,
      logFault: this.#options.logFault,
      dialect: this.#dialect,
    });
    this.#clients.add(client);
  }

  /** Closes the connections of a revoked device. */
  closeDevice(deviceId: string): void {
    for (const client of this.#clients) {
      if (client.deviceId === deviceId) {
        client.close(CloseReasons.revoked.code, CloseReasons.revoked.reason);
      }
    }
  }

  /** Closes every client (going away) and stops listening to the bus. */
  close(): void {
    this.#unsubscribe();
    this.#isClosed = true;
    if (this.#sweepTimer !== null) clearInterval(this.#sweepTimer);
    this.#sweepTimer = null;
    const { code, reason } = CloseReasons.shutdown;
    for (const client of this.#clients) client.close(code, reason);
    this.#clients.clear();
  }

  #fanOut(batch: UpdateBatch): void {
    let json: string | null | undefined;
    let bytes: Uint8Array | undefined;
    const dialect = this.#dialect;
    const shared: SharedBatch = {
      batch,
      payloadJson: () => (json === undefined ? json = dialect.updatesJson(batch.updates) : json),
      // Server frames are not masked: every client is sent these same bytes, encoded once.
      payloadBytes:
        () => (bytes ??= encoder.encode(`${shared.payloadJson()}${dialect.eventSuffix}`)),
    };
    for (const client of this.#clients) client.deliver(shared);
  }

  /**
   * While any client lags or waits, look at them every `SWEEP_MS`: answers and
   * messages go once there is room, a drained client is resynced, a stuck one closed.
   */
  #watch(): void {
    if (this.#isClosed) return;
    this.#sweepTimer ??= setInterval(() => {
      let isAnyWatched = false;
      for (const client of this.#clients) {
        if (client.sweep()) isAnyWatched = true;
      }
      if (!isAnyWatched && this.#sweepTimer !== null) {
        clearInterval(this.#sweepTimer);
        this.#sweepTimer = null;
      }
    }, SWEEP_MS);
  }
}
