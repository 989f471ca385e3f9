/**
 * The OSCQuery server (VidVox's proposal), the handler of the OSCQuery port
 * (the setting `oscQueryPort`, and its default), which the service serves through
 * the same connection server as its HTTP and WebSocket ports (budgets,
 * header and idle deadlines; `server/net/connections.ts`): `GET /` and
 * `GET /<path>` the namespace, `?HOST_INFO`, `?VALUE` and the other
 * attributes; `LISTEN`/`IGNORE` over a WebSocket on the same port
 * (`query_listeners.ts`). Every request passes the HTTP port's Host and
 * Origin checks, then runs the catalog's `oscQuery` through the one policy
 * (`Policy.invoke`: the plan, the `view` scope): the caller is a device with
 * its token (`Authorization: Bearer`), or a sender the OSC port lets in by
 * its address (local under the OSC port's policy, `oscAllow`, a paired OSC
 * device).
 * @module
 */
import { checkRequestOrigin } from "../auth/hosts.ts";
import { type Caller, Policy } from "../core/mod.ts";
import type { Authenticator, Grant } from "../auth/mod.ts";
import type { RateMeter } from "../auth/rate_limit.ts";
import { type Core, CueportError, operationNamed, unexpectedOf } from "../core/mod.ts";
import { errorAnswer, type Peer, upgradeWebSocket } from "../net/mod.ts";
import { buildNamespace, nodeAt, type QueryNode } from "./query_namespace.ts";
import { type ListenerLimits, QueryListeners } from "./query_listeners.ts";

/** Options of the OSCQuery server. */
export interface OscQueryOptions {
  /** The OSC port it describes. */
  oscPort: () => number;
  /** The grant of a sender at this address on the OSC port, or null (`OscServer.grantOf`). */
  grantOf: (address: string) => Grant | null;
  /** Checks a device token sent as `Authorization: Bearer`. */
  authenticator: Authenticator;
  /** Names of this machine accepted in the Host header (as on the HTTP port). */
  hosts: ReadonlySet<string>;
  /** Browser origins allowed (the corsOrigins setting). */
  origins: readonly string[];
  /** The HTTP port, whose page is admitted by any name of this machine. */
  pagePort?: () => number;
  /** The service's rate limit as HTTP requests take from it (remote callers). */
  requestRate: RateMeter;
  /** The same as WebSocket messages take from it. */
  messageRate: RateMeter;
  /** The send budget of its WebSocket clients. */
  limits: ListenerLimits;
  /** Where a fault (anything but a `CueportError`) is logged with its stack. */
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

/** What every request runs: the catalog's `oscQuery` (the plan, the view scope). */
export const OSCQUERY_OPERATION = operationNamed("oscQuery");

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json" },
  });
}

function notAllowed(): CueportError {
  return new CueportError(
    "AUTHENTICATION_FAILED",
    "This address may not send OSC: pair it with /connect on the OSC port first, or send a " +
      "device token (Authorization: Bearer <token>)",
  );
}

/** The OSCQuery server: the handler of its port. */
export class OscQueryServer {
  #core: Core;
  #o: OscQueryOptions;
  #policy: Policy;
  #listeners: QueryListeners;

  /** Subscribes to the core's event bus (for `LISTEN`). */
  constructor(core: Core, options: OscQueryOptions) {
    this.#core = core;
    this.#o = options;
    // The caller always brings a grant or a token: the localhost exemption is the grant of the
    // OSC port's rule, never assumed here.
    this.#policy = new Policy({
      core,
      authenticator: options.authenticator,
      isLocalhostExempt: false,
    });
    this.#listeners = new QueryListeners(core, {
      limits: options.limits,
      rateLimit: options.messageRate,
    });
  }

  /** WebSocket clients connected. */
  get listenerCount(): number {
    return this.#listeners.size;
  }

  /** The handler of the port (`ConnectionServer` with `isWebSocket`). */
  handle(request: Request, peer: Peer): Response | Promise<Response> {
    let answer: unknown;
    try {
      checkRequestOrigin(request, {
        hosts: this.#o.hosts,
        origins: this.#o.origins,
        ...(this.#o.pagePort ? { pagePort: this.#o.pagePort() } : {}),
      });
      this.#o.requestRate.take(peer.address); // local callers pass: the meter decides
      answer = this.#policy.invoke(OSCQUERY_OPERATION, this.#caller(request, peer), {}, {
        where: "OSCQuery",
        context: { oscQuery: (deviceId) => this.#serve(request, peer, deviceId) },
      });
    } catch (error) {
      return this.#failed(error);
    }
    if (answer instanceof Promise) {
      return answer.then((response) => response as Response, (error) => this.#failed(error));
    }
    return answer as Response;
  }

  /** The HTTP answer of a failed request, the failure logged when it is a fault. */
  #failed(error: unknown): Response {
    const fault = unexpectedOf(error);
    if (fault) this.#o.log?.(`OSCQuery: ${fault}`);
    return errorAnswer(error);
  }

  /** Closes the WebSockets of a revoked device (its address's grant is gone with it). */
  closeDevice(deviceId: string): void {
    this.#listeners.closeDevice(deviceId);
  }

  /** Closes the WebSockets (the port itself is closed by its connection server). */
  close(): void {
    this.#listeners.close();
  }

  /** Who calls: a device by its token, else the grant the OSC port gives its address. */
  #caller(request: Request, peer: Peer): Caller {
    const token = request.headers.get("authorization")?.replace(/^Bearer\s+/i, "") || undefined;
    const caller: Caller = { address: peer.address, isLocal: peer.isLocal };
    if (token) caller.token = token;
    else {
      const grant = this.#o.grantOf(peer.address);
      if (!grant) throw notAllowed();
      caller.grant = grant;
    }
    return caller;
  }

  #serve(request: Request, peer: Peer, deviceId: string | undefined): Response {
    if (request.headers.get("upgrade")?.toLowerCase() === "websocket") {
      return this.#upgrade(request, peer, deviceId);
    }
    if (request.method !== "GET") {
      return errorAnswer(
        new CueportError("METHOD_NOT_ALLOWED", "OSCQuery answers GET"),
        { headers: { allow: "GET" } },
      );
    }
    const url = new URL(request.url);
    const query = url.search.slice(1);
    if (query === "HOST_INFO") return json(this.#hostInfo());
    let path: string;
    try {
      path = decodeURIComponent(url.pathname);
    } catch {
      return errorAnswer(
        new CueportError("INVALID_MESSAGE", `Invalid path ${url.pathname.slice(0, 200)}`),
      );
    }
    const node = nodeAt(buildNamespace(this.#core.model), path);
    if (!node) {
      return errorAnswer(
        new CueportError("NOT_FOUND", `No OSC address ${url.pathname.slice(0, 200)}`),
      );
    }
    if (query === "") return json(node);
    if (!ATTRIBUTES.has(query)) {
      return errorAnswer(
        new CueportError("INVALID_MESSAGE", `Unknown attribute ${query.slice(0, 100)}`),
      );
    }
    const value = node[query as keyof QueryNode];
    // The proposal: an attribute the node has not is 204.
    return value === undefined ? new Response(null, { status: 204 }) : json({ [query]: value });
  }

  #upgrade(request: Request, peer: Peer, deviceId: string | undefined): Response {
    try {
      const { socket, response } = upgradeWebSocket(request, {
        idleTimeoutMs: 30_000,
        maxPayload: 64 * 1024, // a command is a few dozen bytes
      });
      this.#listeners.add(socket, peer, deviceId);
      return response;
    } catch (error) {
      return errorAnswer(
        new CueportError(
          "INVALID_MESSAGE",
          `Invalid WebSocket upgrade: ${(error as Error).message}`,
        ),
      );
    }
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
}
