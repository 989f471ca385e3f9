/**
 * The MCP transport: `/mcp` on the HTTP port over the SDK's Streamable HTTP
 * transport (POST sends requests, GET opens the stream of server messages,
 * DELETE ends the session), and the discovery document. The HTTP handler's
 * Host/Origin checks and rate limit have run before a request gets here;
 * this adds the caller's identity (the localhost exemption or a bearer
 * token), the protocol version check, the body limit and the sessions. What
 * a session may list and call is decided per operation by the one policy
 * (`session.ts`).
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { type Core, type MediaSource, type MidiService, unexpectedOf } from "../core/mod.ts";
import { Policy } from "../core/mod.ts";
import { isLocalAddress } from "../auth/mod.ts";
import type { RateMeter } from "../auth/rate_limit.ts";
import type { AuthService } from "../auth/service.ts";
import { readBoundedJson } from "./body.ts";
import { refusal, rpcErrorResponse } from "./errors.ts";
import { discoveryResponse } from "./discovery.ts";
import { type BoundedEventStream, boundEventStream } from "./event_stream.ts";
import { ResourceFeed } from "./resource_feed.ts";
import { McpSession, type RequestCaller } from "./session.ts";
import { type Admission, newSessionId, SessionTable } from "./session_table.ts";
import { ToolTable } from "./tools.ts";
import { SETTING_DEFAULTS } from "../../protocol/settings.ts";

export { TOOL_NAMES } from "./tools.ts";

/** What the endpoint needs. */
export interface McpOptions {
  core: Core;
  auth: AuthService;
  media?: MediaSource | undefined;
  /** The MIDI transport, for the MIDI tool. */
  midi?: MidiService | undefined;
  version: string;
  /** The HTTP budget (a `tools/call` beyond the first of one request takes from it too). */
  rateLimit: RateMeter;
  /** Largest request body, bytes (default: the `maxBodyBytes` setting's). */
  maxBodyBytes?: number;
  /** Largest file `app_file_edit` imports from bytes (default: the `maxUploadBytes` setting's; the body limit binds first). */
  maxUploadBytes?: number;
  /** Open sessions at most, of local clients and of remote devices each (default: the `mcpMaxSessions` setting's). */
  maxSessions?: number;
  /** Open sessions of one remote device at most (default: the `mcpMaxSessionsPerDevice` setting's). */
  maxSessionsPerDevice?: number;
  /** Unsent bytes an event stream (`GET /mcp`) may hold before it is closed (default: the `mcpMaxBufferedBytes` setting's). */
  maxStreamBufferedBytes?: number;
  /** A session idle this long is closed, ms (default: the `mcpSessionIdleMs` setting's). */
  sessionIdleMs?: number;
  /** Monotonic clock, ms (tests move it). */
  now?: () => number;
  /** Where the faults of tools and resources (anything but a `CueportError`) are logged with their stack. */
  log?: (message: string) => void;
}

/** The connection a request came through, as the HTTP handler gives it. */
export interface McpPeer {
  address: string;
  readingBody?(isReading: boolean): void;
}

function isInitialize(body: unknown): boolean {
  const message = Array.isArray(body) && body.length === 1 ? body[0] : body;
  return typeof message === "object" && message !== null &&
    (message as { method?: unknown }).method === "initialize";
}

/** `/mcp` and the discovery document. */
export class McpEndpoint {
  #o: McpOptions;
  #policy: Policy;
  #tools: ToolTable;
  #sessions: SessionTable<McpSession>;
  #streams = new Set<BoundedEventStream>();
  #feed: ResourceFeed;
  #sweep: ReturnType<typeof setInterval>;

  /** Builds the endpoint; it sweeps idle sessions until `close`. */
  constructor(options: McpOptions) {
    this.#o = options;
    this.#policy = new Policy({
      core: options.core,
      authenticator: options.auth.authenticator,
      isLocalhostExempt: options.auth.settings.localhostAuthExempt,
    });
    this.#feed = new ResourceFeed(options.core);
    this.#tools = new ToolTable({
      maxUploadBytes: options.maxUploadBytes ?? SETTING_DEFAULTS.maxUploadBytes,
    });
    const idleMs = options.sessionIdleMs ?? SETTING_DEFAULTS.mcpSessionIdleMs;
    this.#sessions = new SessionTable({
      maxSessions: options.maxSessions ?? SETTING_DEFAULTS.mcpMaxSessions,
      maxSessionsPerDevice: options.maxSessionsPerDevice ??
        SETTING_DEFAULTS.mcpMaxSessionsPerDevice,
      idleMs,
      ...(options.now ? { now: options.now } : {}),
    });
    this.#sweep = setInterval(() => this.#sessions.sweep(), Math.min(60_000, idleMs / 4));
    Deno.unrefTimer(this.#sweep);
  }

  /** How many sessions are open. */
  get sessionCount(): number {
    return this.#sessions.size;
  }

  /** The tool table (tests and docs read it). */
  get tools(): ToolTable {
    return this.#tools;
  }

  /** Closes idle sessions now (the sweep does it on its own; tests call it after moving `now`). */
  sweep(): number {
    return this.#sessions.sweep();
  }

  /** Answers a request to `/mcp`. */
  handle = async (request: Request, peer: McpPeer): Promise<Response> => {
    const response = await this.#answer(request, peer);
    if (!request.headers.has("origin")) return response;
    // A browser client reads the session id and version from the answer (CORS hides them otherwise).
    const headers = new Headers(response.headers);
    headers.set("access-control-expose-headers", "mcp-session-id, mcp-protocol-version");
    return new Response(response.body, { status: response.status, headers });
  };

  /** Answers `GET /.well-known/mcp.json` (and the server card's own path). */
  discovery = (request: Request): Response => discoveryResponse(request, this.#o.version);

  /** How many event streams are open. */
  get streamCount(): number {
    return this.#streams.size;
  }

  /** Closes every session and stream. */
  close(): void {
    clearInterval(this.#sweep);
    this.#sessions.closeAll();
    for (const stream of [...this.#streams]) stream.drop();
  }

  /**
   * An answer of the SDK whose body is an event stream, under the budget of
   * unsent bytes (`event_stream.ts`); a `GET` stream counts as its session's
   * while open (the session's notifications go there).
   */
  #bounded(response: Response, session: McpSession, isGet: boolean): Response {
    if (response.body === null || response.headers.get("content-type") !== "text/event-stream") {
      return response;
    }
    const stream = boundEventStream(response.body, {
      maxBufferedBytes: this.#o.maxStreamBufferedBytes ?? SETTING_DEFAULTS.mcpMaxBufferedBytes,
      onEnd: () => {
        session.detachStream(stream);
        this.#streams.delete(stream);
      },
    });
    this.#streams.add(stream);
    if (isGet) session.attachStream(stream);
    return new Response(stream.readable, { status: response.status, headers: response.headers });
  }

  async #answer(request: Request, peer: McpPeer): Promise<Response> {
    const unsupported = unsupportedVersion(request);
    if (unsupported) return unsupported;
    const isLocal = isLocalAddress(peer.address);
    const token = request.headers.get("authorization")?.replace(/^Bearer\s+/i, "") || undefined;
    let caller: RequestCaller;
    try {
      // The plan and the token, decided by the one policy.
      const grant = await this.#policy.identify({ address: peer.address, isLocal, token });
      caller = { grant, address: peer.address, isLocal, calls: 0 };
    } catch (error) {
      return this.#refused(error);
    }
    const owner = caller.grant.deviceId ?? caller.grant.device;
    let body: unknown;
    if (request.method === "POST") {
      const read = await readBoundedJson(
        request,
        this.#o.maxBodyBytes ?? SETTING_DEFAULTS.maxBodyBytes,
        peer,
      );
      if (read instanceof Response) return read;
      body = read.value;
    }
    const authInfo = authInfoOf(token, owner, caller);
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId === null) {
      if (request.method !== "POST" || !isInitialize(body)) {
        return rpcErrorResponse(400, -32000, "Bad Request: Mcp-Session-Id header is required");
      }
      return await this.#initialize(request, body, authInfo, isLocal);
    }
    const session = this.#sessions.use(sessionId);
    // Another device's session is as unknown as an expired one.
    if (!session || session.owner !== owner) {
      return rpcErrorResponse(404, -32001, "Session not found: initialize a new session");
    }
    const response = await session.transport.handleRequest(
      request,
      body === undefined ? { authInfo } : { parsedBody: body, authInfo },
    );
    return this.#bounded(response, session, request.method === "GET");
  }

  /** The refusal of a request before any session, a fault logged (`unexpectedOf`). */
  #refused(error: unknown): Response {
    const fault = unexpectedOf(error);
    if (fault) this.#o.log?.(`MCP ${fault}`);
    return refusal(error);
  }

  /** A session opened by an `initialize` request, if the session table has a place for its device. */
  async #initialize(
    request: Request,
    body: unknown,
    authInfo: {
      token: string;
      clientId: string;
      scopes: string[];
      extra: { caller: RequestCaller };
    },
    isLocal: boolean,
  ): Promise<Response> {
    let admission: Admission;
    try {
      admission = this.#sessions.admit({ id: authInfo.clientId, isLocal });
    } catch (error) {
      return this.#refused(error);
    }
    try {
      const session = await this.#open(admission);
      const response = await session.transport.handleRequest(request, {
        parsedBody: body,
        authInfo,
      });
      return this.#bounded(response, session, false);
    } finally {
      admission.release(); // a session the SDK did not initialize gives its place back
    }
  }

  /** A new session in the place `admission` took; it joins the table when the SDK has initialized it. */
  async #open(admission: Admission): Promise<McpSession> {
    const transport: WebStandardStreamableHTTPServerTransport =
      new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: newSessionId,
        enableJsonResponse: true,
        onsessioninitialized: (id) => {
          this.#sessions.add(id, session, admission);
          session.start();
        },
        onsessionclosed: (id) => this.#sessions.forget(id),
      });
    const session = new McpSession(
      {
        core: this.#o.core,
        policy: this.#policy,
        tools: this.#tools,
        media: this.#o.media,
        midi: this.#o.midi,
        rateLimit: this.#o.rateLimit,
        version: this.#o.version,
        feed: this.#feed,
        log: this.#o.log,
      },
      admission.owner.id,
      transport,
    );
    await session.connect();
    return session;
  }
}

/** The refusal of a request that names a protocol version the SDK does not speak; null for any other. */
function unsupportedVersion(request: Request): Response | null {
  const version = request.headers.get("mcp-protocol-version");
  if (version === null || SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return null;
  return rpcErrorResponse(
    400,
    -32000,
    `Bad Request: Unsupported protocol version: ${version} (supported versions: ${
      SUPPORTED_PROTOCOL_VERSIONS.join(", ")
    })`,
  );
}

/** What the SDK's transport hands each tool of a request: its token, its device and the caller. */
function authInfoOf(token: string | undefined, owner: string, caller: RequestCaller) {
  return {
    token: token ?? "",
    clientId: owner,
    scopes: [...(caller.grant.scopes ?? ["view", "control", "edit"])],
    extra: { caller },
  };
}
