/**
 * The accept loop of the HTTP and WebSocket ports, with connection budgets.
 * `Deno.serve` accepts on its own and ends its server on the first failed
 * accept (EMFILE), and it never shows a connection before its first request,
 * so idle or half-sent connections could not be counted or timed out. Here
 * the service accepts each connection itself, admits it against the budgets,
 * then hands it to Deno's HTTP engine (the same hyper path `Deno.serve` uses,
 * one connection at a time), or on the WebSocket port to its own engine
 * (`serve_websocket.ts`), and a sweep closes connections past their
 * header or keep-alive deadline. When the process runs out of descriptors
 * anyway (an open-files limit below the budgets: macOS starts programs with
 * 256), remote clients' share shrinks to what fits and idle remote
 * connections are closed, so the local reserve stays usable.
 * @module
 */
import { normalizeAddress } from "./address.ts";
import { bindEach } from "./bind_each.ts";
import { type ServeOnConnection, serveOnConnection } from "./serve_connection.ts";
import { serveWebSocketConnection } from "./serve_websocket.ts";

/**
 * The answers sent as they are made, for as long as a slow client takes to read them: an event
 * stream (MCP's GET /mcp) and a show file's zip. Every other answer is a string or bytes in
 * memory, sent with its length (its body is never read here: that would make it a stream).
 */
const STREAMED_TYPES: ReadonlySet<string> = new Set(["text/event-stream", "application/zip"]);

/** The mark of an answer its maker knows to be plain (`plainAnswer`). */
const PLAIN = Symbol("plain answer");

/**
 * Marks `response`, made with its whole body in memory (a string or bytes) and a status under
 * 400, as plain: the connection takes it as answered without looking at its headers. Reading a
 * `Response`'s headers makes a `Headers` object for it: 1.5% of the service's busy samples under
 * the action load (docs/load.md, issue 42). An unmarked answer is looked at as before.
 */
export function plainAnswer(response: Response): Response {
  (response as Marked)[PLAIN] = true;
  return response;
}

/** A response that may carry the plain mark. */
type Marked = Response & { [PLAIN]?: true };

/** Whether `response`'s maker marked it plain (`plainAnswer`). */
function isPlain(response: Response): boolean {
  return (response as Marked)[PLAIN] === true;
}

/** The connection a request came on, as handlers see it. */
export interface Peer {
  /** The client's address in plain form (IPv4-mapped IPv6 is given as IPv4). */
  readonly address: string;
  /** The same as a `Deno.NetAddr`, for code written against `Deno.ServeHandlerInfo`. */
  readonly remoteAddr: Deno.NetAddr;
  /** Whether the client is on this machine (127.0.0.1 or ::1). */
  readonly isLocal: boolean;
  /**
   * Marks the reading of a request body: while it lasts the header deadline
   * applies, so a body sent a byte at a time cannot hold a connection.
   */
  readingBody(isReading: boolean): void;
}

/** A request handler that knows its connection. */
export type PeerHandler = (request: Request, peer: Peer) => Response | Promise<Response>;

/** The budgets of one port (settings; see docs/security.md). */
export interface ConnectionLimits {
  /** Open connections of remote clients. */
  maxConnections: number;
  /** Open connections of one remote address. */
  maxConnectionsPerAddress: number;
  /** Connections local clients may open beyond what remote clients hold. */
  localReserve: number;
  /** Deadline from accept to a request's headers, and to read a marked body. */
  headerTimeoutMs: number;
  /** An idle connection between requests is closed after this long. */
  keepAliveTimeoutMs: number;
}

/** Options of `ConnectionServer.listen`. */
export interface ConnectionServerOptions {
  /** What the port is, for the log (`HTTP`, `WebSocket`). */
  name: string;
  /** Addresses to bind; one port for all. */
  hosts: readonly string[];
  /** The port; 0 picks a free one (the same for every host). */
  port: number;
  limits: ConnectionLimits;
  isLocal(address: string): boolean;
  handler: PeerHandler;
  log(level: "debug" | "info" | "warn", message: string): void;
  /**
   * The WebSocket port: each connection carries one request, served by
   * `serve_websocket.ts`, whose handler may `upgradeWebSocket` it (Deno's
   * per-connection server cannot carry an upgrade).
   */
  isWebSocket?: boolean;
}

/** How long a connection answered `Connection: close` stays open for the answer to be read. */
export const LINGER_MS = 1000;

const REFUSAL_BODY = JSON.stringify({
  error: {
    code: "TOO_MANY_CONNECTIONS",
    message: "Too many open connections: close idle ones or retry later",
    details: { retryAfterSeconds: 1 },
  },
});
const REFUSAL = new TextEncoder().encode(
  "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n" +
    `retry-after: 1\r\nconnection: close\r\ncontent-length: ${REFUSAL_BODY.length}\r\n\r\n` +
    REFUSAL_BODY,
);
const SERVER_ERROR = JSON.stringify({
  error: { code: "SERVER_ERROR", message: "Internal server error" },
});

/** One admitted connection and its deadlines. */
class Connection implements Peer {
  readonly address: string;
  readonly remoteAddr: Deno.NetAddr;
  readonly isLocal: boolean;
  /** Ends the connection at once. */
  close: () => void = () => {};
  /** Settles the bookkeeping of an answered request (set by the server). */
  onAnswer: (response: Response) => Response = (response) => response;
  /** The same for a handler that failed; rethrows. */
  onFailure: (error: unknown) => never = (error) => {
    throw error;
  };
  /** Requests whose handler has not answered yet. */
  inflight = 0;
  requests = 0;
  /** When the last request started or was answered (the sweep's clock). */
  lastActive: number;
  /** When the marked body read started; -1 while none is being read. */
  readingSince = -1;
  /** After an answer that ends the connection (`Connection: close`), when to close it. */
  closeAt = Infinity;
  /** Upgraded to a WebSocket: the socket's own pings keep it in check. */
  isUpgraded = false;
  #server: ConnectionServer;

  constructor(server: ConnectionServer, remote: Deno.NetAddr, isLocal: boolean, now: number) {
    this.#server = server;
    this.address = normalizeAddress(remote.hostname);
    this.remoteAddr = { transport: "tcp", hostname: this.address, port: remote.port };
    this.isLocal = isLocal;
    this.lastActive = now;
  }

  readingBody(isReading: boolean): void {
    this.readingSince = isReading ? this.#server.now : -1;
  }
}

/** The listeners of one port and the connections they admitted. */
export class ConnectionServer {
  #options: ConnectionServerOptions;
  #listeners: Deno.Listener[];
  #serve: ServeOnConnection;
  #connections = new Set<Connection>();
  #remoteCount = 0;
  /** Remote connections admitted: `maxConnections`, lowered when descriptors ran out. */
  #remoteCap: number;
  #perAddress = new Map<string, number>();
  #finished = new Set<Promise<void>>();
  #sweep: ReturnType<typeof setInterval>;
  #isClosed = false;
  #lastAcceptWarning = -Infinity;
  /** Connections refused by a budget since start. */
  refused = 0;
  /** The sweep's clock: `performance.now()` at the last sweep. */
  now = performance.now();

  private constructor(options: ConnectionServerOptions, listeners: Deno.Listener[]) {
    this.#options = options;
    this.#listeners = listeners;
    this.#remoteCap = options.limits.maxConnections;
    this.#serve = options.isWebSocket ? serveWebSocketConnection() : serveOnConnection();
    const { headerTimeoutMs, keepAliveTimeoutMs } = options.limits;
    const tick = Math.min(1000, Math.max(20, Math.min(headerTimeoutMs, keepAliveTimeoutMs) / 5));
    this.#sweep = setInterval(() => this.#expire(), tick);
    for (const listener of listeners) void this.#acceptLoop(listener);
  }

  /**
   * Binds every host on one port and starts accepting. A host that cannot be bound is skipped
   * (`bindEach`); at least one must bind.
   * @throws {Deno.errors.AddrInUse} and the like when no host can be bound
   */
  static listen(options: ConnectionServerOptions): ConnectionServer {
    const listeners = bindEach(
      options.hosts,
      options.port,
      (hostname, port) => Deno.listen({ hostname, port, transport: "tcp" }),
      `${options.name}:`,
      (message, level) => options.log(level, message),
    );
    return new ConnectionServer(options, listeners);
  }

  /** The bound port. */
  get port(): number {
    return (this.#listeners[0]!.addr as Deno.NetAddr).port;
  }

  /** The bound addresses, `host:port`. */
  get addresses(): string[] {
    return this.#listeners.map((l) => {
      const a = l.addr as Deno.NetAddr;
      return a.hostname.includes(":") ? `[${a.hostname}]:${a.port}` : `${a.hostname}:${a.port}`;
    });
  }

  /** Open connections, all and remote. */
  get counts(): { open: number; remote: number } {
    return { open: this.#connections.size, remote: this.#remoteCount };
  }

  /** Stops accepting, closes every connection, and resolves once all are closed. */
  async close(): Promise<void> {
    this.#isClosed = true;
    clearInterval(this.#sweep);
    for (const listener of this.#listeners) {
      try {
        listener.close();
      } catch { /* already closed */ }
    }
    for (const connection of this.#connections) connection.close();
    await Promise.all(this.#finished);
  }

  async #acceptLoop(listener: Deno.Listener): Promise<void> {
    let backoffMs = 0;
    while (!this.#isClosed) {
      let conn: Deno.TcpConn;
      try {
        conn = await listener.accept() as Deno.TcpConn;
        backoffMs = 0;
      } catch (error) {
        if (this.#isClosed || error instanceof Deno.errors.BadResource) return;
        // Out of descriptors (EMFILE, ENFILE) or memory: make room, wait and go
        // on; the pending connection stays in the backlog until there is room.
        backoffMs = backoffMs === 0 ? 5 : Math.min(1000, backoffMs * 2);
        this.#warnAccept(error as Error);
        this.#relieve();
        await new Promise((resolve) => setTimeout(resolve, backoffMs));
        continue;
      }
      this.#admit(conn);
    }
  }

  #warnAccept(error: Error): void {
    const now = performance.now();
    if (now - this.#lastAcceptWarning < 10_000) return;
    this.#lastAcceptWarning = now;
    this.#options.log(
      "warn",
      `${this.#options.name}: cannot accept a connection (${error.message}); retrying`,
    );
  }

  /**
   * After a failed accept: remote clients keep what they hold less the local
   * reserve, from now on, and the oldest idle remote connections beyond that
   * are closed to free their descriptors.
   */
  #relieve(): void {
    const cap = Math.max(1, this.#remoteCount - this.#options.limits.localReserve);
    if (cap < this.#remoteCap) {
      this.#remoteCap = cap;
      this.#options.log(
        "warn",
        `${this.#options.name}: out of open files at ${this.#connections.size} connections; ` +
          `remote clients are limited to ${cap} (raise the open-files limit, e.g. ulimit -n or ` +
          `LimitNOFILE, to allow more)`,
      );
    }
    let excess = this.#remoteCount - this.#remoteCap;
    for (const c of this.#connections) {
      if (excess <= 0) break;
      if (c.isLocal || c.isUpgraded || c.inflight > 0) continue;
      c.close();
      excess--;
    }
  }

  #admit(conn: Deno.TcpConn): void {
    const remote = conn.remoteAddr as Deno.NetAddr;
    const address = normalizeAddress(remote.hostname);
    const isLocal = this.#options.isLocal(address);
    const limits = this.#options.limits;
    const perAddress = this.#perAddress.get(address) ?? 0;
    const isRefused = isLocal
      ? this.#connections.size >= limits.maxConnections + limits.localReserve
      : this.#remoteCount >= this.#remoteCap ||
        perAddress >= limits.maxConnectionsPerAddress;
    if (isRefused) return this.#refuse(conn, address);

    const connection = new Connection(this, remote, isLocal, this.now);
    // Made once per connection, not per request: the answer's continuation on the hot path.
    connection.onAnswer = (response) => this.#answered(connection, response);
    connection.onFailure = (error) => {
      this.#answered(connection, null);
      throw error;
    };
    this.#connections.add(connection);
    if (!isLocal) {
      this.#remoteCount++;
      this.#perAddress.set(address, perAddress + 1);
    }
    conn.setNoDelay(true);
    const served = this.#serve(
      conn,
      (request) => this.#handle(connection, request),
      (error) => {
        this.#options.log("warn", `${this.#options.name}: ${(error as Error)?.stack ?? error}`);
        return new Response(SERVER_ERROR, {
          status: 500,
          headers: { "content-type": "application/json" },
        });
      },
    );
    connection.close = served.close;
    const done: Promise<void> = served.finished.catch(() => {}).then(() =>
      this.#forget(connection, done)
    );
    this.#finished.add(done);
  }

  #refuse(conn: Deno.TcpConn, address: string): void {
    this.refused++;
    if (this.refused % 1000 === 1) {
      this.#options.log(
        "warn",
        `${this.#options.name}: connection budget full, refusing ${address} ` +
          `(${this.refused} refused so far; settings maxConnections, maxConnectionsPerAddress)`,
      );
    }
    // The answer fits in the socket buffer; a client that never reads loses nothing.
    conn.write(REFUSAL).catch(() => {}).finally(() => {
      try {
        conn.close();
      } catch { /* closed */ }
    });
  }

  #forget(connection: Connection, done: Promise<void>): void {
    this.#finished.delete(done);
    if (!this.#connections.delete(connection) || connection.isLocal) return;
    this.#remoteCount--;
    const left = (this.#perAddress.get(connection.address) ?? 1) - 1;
    if (left > 0) this.#perAddress.set(connection.address, left);
    else this.#perAddress.delete(connection.address);
  }

  #handle(connection: Connection, request: Request): Response | Promise<Response> {
    connection.inflight++;
    connection.requests++;
    connection.lastActive = this.now;
    let answer: Response | Promise<Response>;
    try {
      answer = this.#options.handler(request, connection);
    } catch (error) {
      connection.inflight--;
      throw error;
    }
    if (answer instanceof Promise) return answer.then(connection.onAnswer, connection.onFailure);
    return this.#answered(connection, answer);
  }

  #answered<T extends Response | null>(connection: Connection, response: T): T {
    connection.inflight--;
    connection.readingSince = -1;
    connection.lastActive = this.now;
    if (response === null || isPlain(response)) return response;
    if (response.status === 101) connection.isUpgraded = true;
    // The type first: reading `body` turns a string body into a stream, which changes how Deno
    // sends it (refusals that close the connection then did not reach their clients).
    else if (
      STREAMED_TYPES.has(response.headers.get("content-type") ?? "") && response.body !== null
    ) {
      return this.#streaming(connection, response) as T;
    } else if (response.status >= 400 && response.headers.get("connection") === "close") {
      // A refused body the client may still be sending: Deno would read it to its end. Close
      // after a moment, so the answer reaches the client before the socket goes. From the time
      // of the answer: the sweep's clock may be a whole tick old, a linger counted from it none.
      connection.closeAt = performance.now() + LINGER_MS;
    }
    return response;
  }

  /**
   * An answer with a body (an event stream, MCP's GET /mcp; a show file's
   * zip, streamed as it is written) is still being sent: the connection is
   * busy, not idle, until the body ends, however long a slow client takes (an
   * event stream's keep-alive comments keep it in check, as pings do a
   * WebSocket; a client that stops reading stalls it in TCP). A body that
   * fails (MCP ends one whose client does not read) or is cancelled ends its
   * connection at once: the HTTP engine would otherwise wait to write what
   * it holds to a client that does not read, and notice the failure only
   * then (never), the connection idle only for the keep-alive sweep. Its
   * descriptor and slot are freed; the kernel then sends what its buffer
   * holds, or gives up (Deno cannot reset a socket).
   */
  #streaming(connection: Connection, response: Response): Response {
    connection.inflight++;
    let isDone = false;
    const once = () => {
      if (isDone) return;
      isDone = true;
      connection.inflight--;
      connection.lastActive = this.now;
    };
    const failed = () => {
      once();
      connection.close();
    };
    const body = response.body!.pipeThrough(
      new TransformStream({ flush: once, cancel: failed } as Transformer),
    );
    return new Response(body, { status: response.status, headers: response.headers });
  }

  /** The sweep: closes connections past their deadlines. */
  #expire(): void {
    const now = this.now = performance.now();
    const { headerTimeoutMs, keepAliveTimeoutMs } = this.#options.limits;
    for (const c of this.#connections) {
      if (c.isUpgraded) continue;
      if (now >= c.closeAt) {
        c.close();
        continue;
      }
      if (c.readingSince >= 0) {
        if (now - c.readingSince > headerTimeoutMs) c.close();
        continue;
      }
      if (c.inflight > 0) continue;
      const limit = c.requests === 0 ? headerTimeoutMs : keepAliveTimeoutMs;
      if (now - c.lastActive > limit) c.close();
    }
  }
}
