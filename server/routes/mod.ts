/**
 * The HTTP transport: a Hono app generated from the route table, over the
 * core. It decodes requests, calls the core, encodes the answer; it knows no
 * rule of its own.
 * @module
 */
import { type Context, Hono } from "hono";
import {
  type Caller,
  type Core,
  CueportError,
  type InvokeContext,
  type InvokeOptions,
  isStableAnswer,
  type MediaAnswer,
  type MediaSource,
  type MidiService,
  Policy,
  ShowDownload,
  stableAnswer,
  unexpectedOf,
} from "../core/mod.ts";
import { checkRequestOrigin } from "../auth/hosts.ts";
import type { RateMeter } from "../auth/rate_limit.ts";
import { type Grant, isLocalAddress } from "../auth/mod.ts";
import type { AuthService } from "../auth/service.ts";
import { type CorsHandler, withCors } from "./cors.ts";
import { type ClientCounts, infoView, type ServicePorts } from "./info.ts";
import { openApiDocument } from "./openapi.ts";
import { route, type RouteSpec, type RouteWire } from "./route.ts";
import type { GroupStatus } from "../../protocol/rigs.ts";
import { routeTable } from "./table.ts";
import {
  mediaResponse,
  suffixesOf,
  type SuffixGroup,
  suffixGroups,
  withoutSuffixes,
} from "./media_answers.ts";
import { downloadResponse, showRoutes } from "./show_routes.ts";
import { editRoutes } from "./edit_routes.ts";
import { isNestedDeeper } from "../../lib/json_depth.ts";
import { didYouMean } from "../../lib/suggest.ts";
import { errorAnswer, httpError, type Peer, plainAnswer, readBoundedText } from "../net/mod.ts";
import type { HttpDialect } from "../net/dialect.ts";
import { requestHeader } from "../net/serve_connection.ts";
import { remotePage } from "../web/mod.ts";
import { SETTING_DEFAULTS } from "../../protocol/settings.ts";
import {
  DIRECT_ROUTES,
  type DirectApp,
  directFirst,
  DirectRoutes,
  NO_PARAMS,
  pathOf,
  type RouteContext,
  type RouteHandler,
} from "./direct.ts";

/** What each request carries into the app: the peer's address, from the socket. */
export interface HttpEnv {
  address: string;
  /** The connection, where the request came through the service's listener. */
  peer?: Pick<Peer, "readingBody">;
}

/**
 * A handler another module serves on this port (MCP's `/mcp`): behind the
 * same Host/Origin checks, rate limit and CORS as the routes.
 */
export interface HttpMount {
  methods: readonly string[];
  path: string;
  handle(
    request: Request,
    peer: { address: string; readingBody?(isReading: boolean): void },
  ): Response | Promise<Response>;
}

/** What the HTTP app needs besides the core. */
export interface HttpAppOptions {
  version: string;
  startedAt: number;
  /** How this rig stands in its rig group (`GET /api/v1/group`, `/health`'s `group`). */
  group: () => GroupStatus;
  /** The bound ports (known once listening). */
  ports: () => ServicePorts;
  /** The clients connected now (`/api/v1/info`). */
  clients: () => ClientCounts;
  /** Origins allowed to call from a browser; `*` allows any. */
  corsOrigins: readonly string[];
  /** Names of this machine accepted in the Host header (see `machineHosts`). */
  hosts: ReadonlySet<string>;
  /** Per-address limits for remote clients. */
  rateLimit: RateMeter;
  /** Largest JSON body accepted, bytes (default: the `maxBodyBytes` setting's). */
  maxBodyBytes?: number;
  /** Largest body of a remote request without a valid token, bytes (default: the `maxUnauthenticatedBodyBytes` setting's). */
  maxUnauthenticatedBodyBytes?: number;
  /** Largest upload accepted, bytes (default: the `maxUploadBytes` setting's). */
  maxUploadBytes?: number;
  /** An upload that sends no byte for this long is ended with 408, ms (default: the `uploadIdleTimeoutMs` setting's). */
  uploadIdleTimeoutMs?: number;
  /** Where unexpected errors are logged with their stack. */
  log?: (message: string) => void;
  /** Pairing, devices and the authenticator routes are checked with. */
  auth: AuthService;
  /** Makes the pictures of the media routes. */
  media?: MediaSource;
  /** The MIDI transport, for the MIDI routes (`/api/v1/midi`). */
  midi?: MidiService;
  /** Another interface version served by this engine (the 5.0.0 one, `server/legacy`). */
  dialect?: HttpDialect;
  /** Handlers served beside the routes (`/mcp`, `/.well-known/mcp.json`). */
  mounts?: readonly HttpMount[];
}

/** The routes with the generated meta routes (info, OpenAPI) appended. */
export function allRoutes(
  options: Pick<
    HttpAppOptions,
    "version" | "startedAt" | "ports" | "clients" | "maxUploadBytes" | "uploadIdleTimeoutMs"
  >,
): RouteSpec[] {
  const routes = [
    ...routeTable(),
    ...editRoutes({
      maxUploadBytes: options.maxUploadBytes ?? SETTING_DEFAULTS.maxUploadBytes,
      uploadIdleTimeoutMs: options.uploadIdleTimeoutMs ?? SETTING_DEFAULTS.uploadIdleTimeoutMs,
    }),
    ...showRoutes({
      maxUploadBytes: options.maxUploadBytes ?? SETTING_DEFAULTS.maxUploadBytes,
      uploadIdleTimeoutMs: options.uploadIdleTimeoutMs ?? SETTING_DEFAULTS.uploadIdleTimeoutMs,
    }),
  ];
  // The routes that describe this interface: operations of the catalog, told what to say.
  const meta: RouteSpec[] = [
    route("GET", "/api/v1/info", "info", {
      response: infoView.schema,
      describe: () => infoView.build(all, options.version, options.ports(), options.clients()),
    }),
    route("GET", "/api/v1/openapi.json", "openapi", {
      response: openApiDocument.schema,
      // Built once: it depends on the routes alone, and building it with zod took about 10 ms
      // and megabytes of garbage per request (the http_fuzz probe's peak RSS).
      describe: () => (openApi ??= stableAnswer(openApiDocument.build(all, options.version))),
    }),
  ];
  const all = [...routes, ...meta];
  let openApi: object | undefined;
  return all;
}

function tooLarge(limit: number): CueportError {
  return new CueportError("PAYLOAD_TOO_LARGE", `Body too large: over ${limit} bytes`, { limit });
}

/** A chunked body, refused as soon as it passes `limit` (`readBoundedText`). */
async function readChunkedText(body: ReadableStream<Uint8Array>, limit: number): Promise<string> {
  const text = await readBoundedText(body, limit);
  if (text === null) throw tooLarge(limit);
  return text;
}

/**
 * How deep a JSON body may nest arrays and objects. JSON.parse itself copes
 * with any depth, but what runs on the value after it may recurse: an action
 * name nested 10,000 deep overflowed the stack when the error answer quoted
 * it (JSON.stringify), and answered 500. No route needs more than a handful
 * (a Project's full view nests 5 deep).
 */
const MAX_JSON_DEPTH = 64;

function parseJsonBody(text: string): unknown {
  if (text.trim() === "") return {};
  // Each level takes two characters, so a body this short cannot be too deep: the common
  // small body (an action is about 40 bytes) pays no second pass.
  if (text.length > 2 * MAX_JSON_DEPTH && isNestedDeeper(text, MAX_JSON_DEPTH)) {
    throw new CueportError(
      "INVALID_MESSAGE",
      `Invalid body: JSON nested deeper than ${MAX_JSON_DEPTH} levels`,
      { field: "body", limit: MAX_JSON_DEPTH },
    );
  }
  try {
    return JSON.parse(text);
  } catch {
    throw notJson();
  }
}

function notJson(): CueportError {
  return new CueportError("INVALID_MESSAGE", "Invalid body: not valid JSON", { field: "body" });
}

/** Errors of a read whose connection ended before the body did (the client hung up). */
const CLOSED_ERRORS = [
  Deno.errors.BadResource,
  Deno.errors.Interrupted,
  Deno.errors.ConnectionReset,
  Deno.errors.ConnectionAborted,
  Deno.errors.BrokenPipe,
  Deno.errors.UnexpectedEof,
];

/**
 * A failed body read as the client's error (400), not the server's: a client
 * that hangs up mid-body makes the read reject with BadResource; a chunked
 * body whose chunk size line passes 4 KiB (a long chunk extension) with a
 * plain Error from Deno's HTTP engine ("invalid HTTP/1 request: Invalid",
 * Deno 2.9.6; other malformed chunking closes the connection before any
 * handler runs). Anything else is left as it is: a server fault.
 */
function bodyReadError(error: unknown, isChunked: boolean): unknown {
  if (CLOSED_ERRORS.some((type) => error instanceof type)) {
    // Also what a body the header deadline cut off sees: no one reads that answer either.
    return new CueportError(
      "INVALID_MESSAGE",
      "Invalid body: the client closed the connection before the end",
      { field: "body" },
    );
  }
  if (
    isChunked && error instanceof Error &&
    (error.constructor === Error || error instanceof Deno.errors.Http)
  ) {
    return new CueportError(
      "INVALID_MESSAGE",
      "Invalid body: malformed chunked encoding (a chunk size line, extensions included, " +
        "must fit in 4 KiB)",
      { field: "body" },
    );
  }
  return error;
}

/**
 * The JSON body, at most `limit` bytes: a declared length over it is refused
 * before reading, a chunked body as soon as it passes it. The connection's
 * header deadline covers the read.
 *
 * Not Hono's `bodyLimit` middleware: the limit depends on the grant (16 KiB
 * before authentication, `maxBodyBytes` after), known only once the policy
 * has authorized the caller inside the route, while a middleware runs before
 * it with one fixed limit; `bodyLimit` buffers a chunked body and builds a
 * second `Request` from it (a copy), knows nothing of the header deadline
 * (`readingBody`), and, with Hono's `c.req.json()` after it, made a small
 * POST take 1.4 to 2.9 times as long as this reader does (slower in 6 of 6
 * rounds of `bench/hono_middleware_bench.ts`, two runs on a busy 2-core
 * machine, 2026-11-27). Its 413 would still need our body
 * (PAYLOAD_TOO_LARGE with `Connection: close`), which `tooLarge` gives here.
 *
 * `isBlankRefused`: the route needs a body (the action), so a short declared one is read by
 * `readShortJson`, which takes a blank body for no JSON; elsewhere a blank body is `{}`.
 */
export function readJsonBody(
  c: RouteContext,
  limit: number,
  isBlankRefused = false,
): Promise<unknown> {
  const request = c.req.raw;
  const declared = requestHeader(request, "content-length");
  if (declared !== null && Number(declared) > limit) return Promise.reject(tooLarge(limit));
  const peer = (c.env as HttpEnv | undefined)?.peer;
  peer?.readingBody(true);
  const length = declared === null ? 0 : Number(declared);
  if (isBlankRefused && length > 0 && length <= SHORT_BODY_BYTES) {
    return readShortJson(request, peer);
  }
  const text = declared !== null || request.body === null
    ? request.text()
    : readChunkedText(request.body, limit);
  return text.then((t) => {
    peer?.readingBody(false);
    return parseJsonBody(t);
  }, (error) => {
    peer?.readingBody(false);
    throw error instanceof CueportError ? error : bodyReadError(error, declared === null);
  });
}

/** A declared body this short cannot nest deeper than `MAX_JSON_DEPTH` (two characters a level). */
const SHORT_BODY_BYTES = 2 * MAX_JSON_DEPTH;

/**
 * A short declared body by `Request.json()`: Deno hands a body its HTTP engine already holds to
 * `JSON.parse` as one string (one op), where `text()` takes it as bytes, decodes them and goes
 * through the body's promise chain: 1.3 to 2.5 us less server CPU a request (paired rounds at load
 * 25 to 28, docs/load.md). The text is never seen, so a blank body is no JSON here: only a route
 * that needs a body (`readJsonBody`'s `isBlankRefused`) reads so.
 */
function readShortJson(request: Request, peer: HttpEnv["peer"] | undefined): Promise<unknown> {
  return request.json().then((body) => {
    peer?.readingBody(false);
    return body;
  }, (error) => {
    peer?.readingBody(false);
    if (error instanceof SyntaxError) throw notJson();
    throw error instanceof CueportError ? error : bodyReadError(error, false);
  });
}

/**
 * JSON of stable answers (a Project's full view, the app state): the read
 * model replaces such objects instead of mutating them, so one seen again has
 * the same JSON and is serialized once, however large. Fresh answers are not
 * cached (weak-map churn costs the GC).
 */
const jsonTexts = new WeakMap<object, string>();
const JSON_HEADERS = { "content-type": "application/json" };

/**
 * The answer as a response with a string body: Deno.serve sends a string
 * 8-15% faster than the same JSON encoded to bytes in JS (measured with wrk,
 * 10 B and 6 KB bodies). A fresh object (the action's answer) goes by `Response.json`, the same
 * string body and the same header on the wire, without the headers record `new Response` converts
 * (docs/load.md, issue 42); anything else (`undefined`, which `Response.json` refuses) as before.
 * Every one is marked plain (`plainAnswer`): the connection does not look at its headers.
 */
function jsonResponse(value: unknown): Response {
  if (typeof value !== "object" || value === null) {
    return plainAnswer(new Response(JSON.stringify(value), { headers: JSON_HEADERS }));
  }
  if (!isStableAnswer(value)) return plainAnswer(Response.json(value));
  let text = jsonTexts.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    jsonTexts.set(value, text);
  }
  return plainAnswer(new Response(text, { headers: JSON_HEADERS }));
}

/** Each route's path as a pattern, for the `Allow` header of a 405 (compiled once, not per miss). */
function pathPatterns(routes: RouteSpec[]): { method: string; pattern: RegExp }[] {
  return routes.map((r) => ({
    method: r.method,
    pattern: new RegExp("^" + r.path.replace(/:[A-Za-z]+/g, "[^/]+") + "/?$"),
  }));
}

function allowedMethods(patterns: { method: string; pattern: RegExp }[], path: string): string[] {
  return patterns.filter((p) => p.pattern.test(path)).map((p) => p.method);
}

/** Builds the HTTP handler: the app behind CORS. */
export function createHttpHandler(
  core: Core,
  options: HttpAppOptions,
): (request: Request, peer: Pick<Peer, "address" | "readingBody">) => Response | Promise<Response> {
  const app = directFirst(httpApp(core, options));
  const dialect = options.dialect;
  /** A refusal before routing (rate limit, Host, Origin). */
  const refuse = (error: unknown, request: Request): Response => {
    if (!dialect) return errorAnswer(error);
    return addHeaders(errorAnswer(error, {}, dialect.error), dialect.headers(request));
  };
  const cors = withCors<HttpEnv>(app, {
    origins: options.corsOrigins,
    methods: ["GET", "POST", "DELETE", "OPTIONS"],
    headers: [
      "Content-Type",
      "Authorization",
      "Mcp-Session-Id",
      "Mcp-Protocol-Version",
      "Last-Event-ID",
    ],
    maxAgeSeconds: 600,
  });
  const handle = dialect ? withDialectHeaders(cors, dialect) : cors;
  return (request, peer) => {
    // The peer's address, from the socket (never from headers).
    const address = peer.address;
    let origin: string | null;
    try {
      options.rateLimit.take(address); // a local client is not metered (rate_limit.ts)
      if (!isLocalAddress(address)) dialect?.seen?.(address);
      origin = checkRequestOrigin(request, {
        hosts: options.hosts,
        origins: options.corsOrigins,
        pagePort: options.ports().http,
      });
    } catch (error) {
      return refuse(error, request);
    }
    // The web remote is the 6.0 interface's page; the 5.0.0 port serves the API alone.
    return (dialect ? null : remotePage(request)) ?? handle(request, { address, peer }, origin);
  };
}

function addHeaders(response: Response, headers: Record<string, string>): Response {
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}

/** Every answer with the dialect's headers (5.0.0: deprecation). */
function withDialectHeaders<E>(
  handle: CorsHandler<E>,
  dialect: HttpDialect,
): CorsHandler<E> {
  return (request, env, origin) => {
    const answer = handle(request, env, origin);
    const headers = dialect.headers(request);
    return answer instanceof Promise
      ? answer.then((r) => addHeaders(r, headers))
      : addHeaders(answer, headers);
  };
}

/** The caller of one request: its address, and its bearer token when the policy asks for it. */
class HttpCaller implements Caller {
  readonly address: string;
  readonly isLocal: boolean;
  #c: RouteContext;
  constructor(address: string, c: RouteContext) {
    this.address = address;
    this.isLocal = isLocalAddress(address);
    this.#c = c;
  }
  get token(): string | undefined {
    return this.#c.req.header("authorization")?.replace(/^Bearer\s+/i, "");
  }
}

/**
 * The declared query parameters that came (`route.query`'s keys). A route
 * that declares its parameters refuses one it does not know, as an unknown
 * field of a body is refused: a mistyped `sise=64` would otherwise answer
 * the picture at its original size without a word. The 5.0.0 interface
 * (`isStrict` false) keeps ignoring them, as it always did.
 * @throws {CueportError} INVALID_MESSAGE naming the unknown parameter
 */
function declaredQuery(
  c: RouteContext,
  route: RouteSpec,
  isStrict: boolean,
): Record<string, string> {
  if (!route.query) return NO_PARAMS;
  const all = c.req.query();
  const known = Object.keys(route.query.shape);
  const picked: Record<string, string> = {};
  for (const key of known) {
    if (all[key] !== undefined) picked[key] = all[key];
  }
  if (isStrict && Object.keys(all).length > Object.keys(picked).length) {
    const unknown = Object.keys(all).find((key) => !known.includes(key))!;
    throw new CueportError(
      "INVALID_MESSAGE",
      `Invalid ${unknown}: not a query parameter of this route${didYouMean(unknown, known)}: use ${
        known.join(", ")
      }`,
      { field: unknown },
    );
  }
  return picked;
}

/**
 * The operation's raw input: the route's own mapping, else the path params
 * and declared query over the body. A body that is the whole input (an
 * action, an edit) is passed as it came, without a copy.
 */
function rawInput(route: RouteSpec, wire: RouteWire, takesBody: boolean): unknown {
  if (route.input) return route.input(wire);
  const hasParams = wire.params !== NO_PARAMS || wire.query !== NO_PARAMS;
  if (!takesBody) return hasParams ? { ...wire.query, ...wire.params } : {};
  if (!hasParams) return wire.body;
  const body = wire.body;
  return typeof body === "object" && body !== null && !Array.isArray(body)
    ? { ...body, ...wire.query, ...wire.params }
    : body;
}

/**
 * Builds the HTTP app (without CORS; see `createHttpHandler`). One Hono app
 * per engine, every route registered from the one table with `app.on`:
 * Hono's `app.route` composes sub-apps under a prefix, and there is nothing
 * to compose (the 5.0.0 interface is another port with its own instance of
 * this engine, not a prefix; `/mcp` is a mount beside the routes, behind
 * the same checks).
 */
export function createHttpApp(core: Core, options: HttpAppOptions): Hono {
  return httpApp(core, options).app;
}

/** The HTTP app (`createHttpApp`) and its direct routes, with how errors are answered. */
function httpApp(
  core: Core,
  options: HttpAppOptions,
): DirectApp {
  const dialect = options.dialect;
  const routes = dialect?.routes ?? allRoutes(options);
  const encode = dialect
    ? (answer: unknown) => new Response(dialect.encode(answer), { headers: JSON_HEADERS })
    : jsonResponse;
  const limit = options.maxBodyBytes ?? SETTING_DEFAULTS.maxBodyBytes;
  const unauthenticatedLimit = Math.min(
    limit,
    options.maxUnauthenticatedBodyBytes ?? SETTING_DEFAULTS.maxUnauthenticatedBodyBytes,
  );
  const policy = new Policy({
    core,
    authenticator: options.auth.authenticator,
    isLocalhostExempt: options.auth.settings.localhostAuthExempt,
  });
  const facts = {
    version: options.version,
    startedAt: options.startedAt,
    problems: () => options.auth.problems,
    group: options.group,
  };
  const app = new Hono();
  // The one HTTP mapping of this engine: 6.0's, or the dialect's (5.0.0 statuses).
  const errorForm = dialect?.error ?? httpError;
  const fail = (error: unknown, method: string, path: string) => {
    const fault = unexpectedOf(error);
    if (fault) options.log?.(`HTTP ${method} ${path}: ${fault}`);
    return errorAnswer(error, {}, errorForm);
  };
  app.onError((error, c) => fail(error, c.req.method, c.req.path));
  for (const mount of options.mounts ?? []) {
    app.on([...mount.methods], mount.path, (c: Context) => {
      const env = c.env as HttpEnv | undefined;
      return mount.handle(c.req.raw, {
        address: env?.address ?? "127.0.0.1",
        readingBody: (isReading) => env?.peer?.readingBody(isReading),
      });
    });
  }
  const shared: RouteShared = { options, policy, facts, encode, limit, unauthenticatedLimit };
  const direct = new DirectRoutes();
  // The 5.0.0 interface maps its own paths: it has no direct route.
  for (const group of suffixGroups(routes)) {
    onGroup(app, group, shared, dialect ? new DirectRoutes() : direct);
  }
  onNotFound(app, routes, dialect);
  return {
    app,
    direct,
    fail: (error, request) => fail(error, request.method, pathOf(request.url) ?? request.url),
  };
}

/** What a path no route takes is answered: 405 with `Allow` where other methods are, else 404. */
function onNotFound(app: Hono, routes: RouteSpec[], dialect: HttpDialect | undefined): void {
  const patterns = pathPatterns(routes);
  app.notFound((c) => {
    if (dialect) throw dialect.notFound(c.req.method, c.req.path);
    const allowed = allowedMethods(patterns, c.req.path);
    if (allowed.length > 0) {
      return errorAnswer(
        new CueportError(
          "METHOD_NOT_ALLOWED",
          `${c.req.method} is not allowed on ${c.req.path}: use ${allowed.join(" or ")}`,
        ),
        { headers: { allow: [...allowed, "OPTIONS"].join(", ") } },
      );
    }
    throw new CueportError("NOT_FOUND", `No route for ${c.req.method} ${c.req.path}`);
  });
}

/** How a route runs its operation: always with the route's context. */
type RouteInvoke = InvokeOptions & { context: InvokeContext };

/** What every route of one app shares (`createHttpApp`). */
interface RouteShared {
  options: HttpAppOptions;
  policy: Policy;
  facts: InvokeContext["facts"];
  /** How an answer is put on the wire (the dialect's, or JSON). */
  encode: (answer: unknown) => Response;
  /** The body limits after and before authentication. */
  limit: number;
  unauthenticatedLimit: number;
}

/**
 * Registers the routes of one group (`suffixGroups`) as one Hono path: one route's handler, or,
 * for routes that differ only in an extension, the handler of the route the path ends as.
 */
function onGroup(
  app: Hono,
  group: SuffixGroup<RouteSpec>,
  shared: RouteShared,
  direct: DirectRoutes,
): void {
  const handlers = group.members.map((route) => routeHandler(route, shared));
  if (handlers.length === 1) {
    app.on(group.method, group.path, handlers[0]!);
    if (DIRECT_ROUTES.includes(`${group.method} ${group.path}`)) {
      direct.set(group.method, group.path, handlers[0]!);
    }
    return;
  }
  const suffixes = group.members.map((route) => Object.entries(suffixesOf(route.path) ?? {}));
  app.on(group.method, group.path, (c: Context) => {
    const params = c.req.param();
    const at = suffixes.findIndex((list) =>
      list.every(([name, ext]) => params[name]?.endsWith(ext))
    );
    // The group's pattern admits only its members' extensions: one of them ends the path.
    return handlers[Math.max(at, 0)]!(c);
  });
}

/**
 * The services a route's operation is given: the same for every request (a picture's request
 * adds its signal to a copy, `runMedia`), made once and frozen, as every request shares it.
 */
function routeContext(route: RouteSpec, shared: RouteShared): InvokeContext {
  const { options, facts } = shared;
  const context: InvokeContext = {
    auth: options.auth,
    facts,
    media: options.media,
    midi: options.midi,
    describe: route.describe,
  };
  const lifetime = options.dialect?.tokenLifetimeSeconds;
  if (lifetime !== undefined) context.tokenLifetimeSeconds = lifetime;
  return Object.freeze(context);
}

/**
 * The handler of one route: it authorizes the caller, reads what the
 * route takes (path, query, body within the grant's limit) and runs the
 * operation through the policy, without a promise for a synchronous read.
 */
function routeHandler(
  route: RouteSpec,
  shared: RouteShared,
): RouteHandler {
  const { options, policy, encode, limit, unauthenticatedLimit } = shared;
  const dialect = options.dialect;
  const operation = route.operation;
  const hasParams = route.path.includes(":");
  // POST routes read their JSON body (within the limit) even when the operation takes none.
  const readsBody = route.method === "POST" && !route.invoke;
  const takesBody = route.body !== undefined;
  const suffixes = suffixesOf(route.path);
  const isMedia = operation.produces !== undefined;
  // The action needs a body: a blank one is refused as no JSON (`readShortJson`).
  const isBlankRefused = readsBody && DIRECT_ROUTES.includes(`${route.method} ${route.path}`);
  const context = routeContext(route, shared);
  const withoutKey: RouteInvoke = Object.freeze({ context });
  const run = (c: RouteContext, caller: HttpCaller, grant: Grant): Response | Promise<Response> => {
    const key = route.idempotent ? c.req.header("idempotency-key") : undefined;
    const invoked: RouteInvoke = key === undefined
      ? withoutKey
      : { context, retry: { key, field: "Idempotency-Key" } };
    /** Runs the operation through the one path, for the grant `authorize` gave. */
    const runAs = (input: unknown, options = invoked) =>
      policy.runAs(grant, operation, caller, input, options);
    const params = hasParams ? c.req.param() : NO_PARAMS;
    const wire: RouteWire = {
      params: suffixes ? withoutSuffixes(params, suffixes) : params,
      query: declaredQuery(c, route, !dialect),
      body: undefined,
    };
    const output = route.output;
    const respond = output ? (answer: unknown) => encode(output(answer, wire)) : encode;
    if (isMedia) return runMedia(c, route, wire, invoked, runAs);
    if (route.invoke) {
      return route.invoke(c.req.raw, wire, (input) => Promise.resolve(runAs(input)))
        .then(respond);
    }
    if (readsBody) {
      // Before authentication a remote client gets a small body (pairing needs little).
      const bodyLimit = grant.isAnonymous ? unauthenticatedLimit : limit;
      return readJsonBody(c, bodyLimit, isBlankRefused).then((body) => {
        wire.body = body;
        return runAs(rawInput(route, wire, takesBody));
      }).then(respond);
    }
    // Reads stay synchronous: no promise per request unless the operation needs one.
    const result = runAs(rawInput(route, wire, false));
    return result instanceof Promise ? result.then(respond) : respond(result);
  };
  return (c: RouteContext): Response | Promise<Response> => {
    const caller = new HttpCaller((c.env as HttpEnv | undefined)?.address ?? "127.0.0.1", c);
    const grant = policy.authorize(caller, operation, route.label);
    return grant instanceof Promise ? grant.then((g) => run(c, caller, g)) : run(c, caller, grant);
  };
}

/** Runs a media operation: a picture (or 304 for `If-None-Match`), made only while its client waits. */
function runMedia(
  c: RouteContext,
  route: RouteSpec,
  wire: RouteWire,
  invoked: RouteInvoke,
  runAs: (input: unknown, options: RouteInvoke) => unknown,
): Response | Promise<Response> {
  // A picture nobody waits for any more is not made (docs/media.md): the route's context, and
  // this request's signal.
  const options = { ...invoked, context: { ...invoked.context, signal: c.req.raw.signal } };
  const input = { ...rawInput(route, wire, false) as object };
  const tag = c.req.header("if-none-match");
  if (tag !== undefined) Object.assign(input, { ifNoneMatch: tag });
  // A picture in memory comes back at once: no promise on the hot path.
  const answer = runAs(input, options) as
    | MediaAnswer
    | ShowDownload
    | Promise<MediaAnswer | ShowDownload>;
  return answer instanceof Promise ? answer.then(mediaOrDownload) : mediaOrDownload(answer);
}

/** A media operation's answer on the wire: a show file streams, a picture is bytes. */
function mediaOrDownload(answer: MediaAnswer | ShowDownload): Response {
  return answer instanceof ShowDownload ? downloadResponse(answer) : mediaResponse(answer);
}
