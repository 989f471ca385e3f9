/**
 * The direct routes of the HTTP transport (issue 42): the action, the hottest
 * path of the service, and the two reads a client polls (the app state, a
 * Project), served without Hono's router and `Context`, in front of the Hono
 * app (`routes/mod.ts`) that serves everything else.
 * @module
 */
import type { Hono } from "hono";
import { requestHeader } from "../net/serve_connection.ts";

/**
 * What a route's handler reads of its request: Hono's `Context`, or the lighter one a direct
 * route gets (`directFirst`).
 */
export interface RouteContext {
  env: unknown;
  req: {
    raw: Request;
    header(name: string): string | undefined;
    param(): Record<string, string>;
    query(): Record<string, string>;
  };
}

/** One route's handler, under Hono or direct. */
export type RouteHandler = (c: RouteContext) => Response | Promise<Response>;

/**
 * The routes served without Hono's router and `Context` (`directFirst`): the action, the
 * hottest path of the service, and the app state and a Project, the reads clients poll (issue
 * 42: measured with wrk, Hono's dispatch was about a tenth of such a read's CPU). Their handlers
 * read nothing Hono adds but a path parameter, which a direct route has only as its last
 * segment. Any other request, and any form of these paths Hono would read otherwise
 * (percent-escapes, a trailing slash, HEAD), goes through Hono as before.
 */
export const DIRECT_ROUTES: readonly string[] = [
  "POST /api/v1/action",
  "GET /api/v1/app-state",
  "GET /api/v1/projects/:projectId",
];

/** A direct route's handler, with the path parameters of the request it matched. */
export interface DirectMatch {
  handler: RouteHandler;
  params: Record<string, string>;
}

/** The direct routes' handlers: by method and path, or by the path before their one parameter. */
export class DirectRoutes {
  #byMethod = new Map<string, MethodRoutes>();

  /** How many routes are held. */
  get size(): number {
    let size = 0;
    for (const routes of this.#byMethod.values()) {
      size += routes.exact.size + routes.lastParam.length;
    }
    return size;
  }

  /** Whether any route takes `method`: a request of another method needs no path read. */
  takes(method: string): boolean {
    return this.#byMethod.has(method);
  }

  /**
   * Holds `handler` for `method` on `path` (Hono's syntax, `/a/:name`).
   * @throws {Error} when a parameter is not the last segment: Hono's router is needed there
   */
  set(method: string, path: string, handler: RouteHandler): void {
    let routes = this.#byMethod.get(method);
    if (!routes) {
      this.#byMethod.set(method, routes = { exact: new Map(), lastParam: [], seen: new Map() });
    }
    const at = path.lastIndexOf("/:");
    if (at < 0) {
      routes.exact.set(path, { handler, params: NO_PARAMS });
      return;
    }
    const name = path.slice(at + 2);
    if (path.slice(0, at).includes(":") || !/^\w+$/.test(name)) {
      throw new Error(`Direct route ${method} ${path}: only its last segment may be a parameter`);
    }
    routes.lastParam.push({ prefix: path.slice(0, at + 1), name, handler });
  }

  /** The handler of `method` on `path` (no percent-escapes: `pathOf`), or undefined. */
  match(method: string, path: string): DirectMatch | undefined {
    const routes = this.#byMethod.get(method);
    if (!routes) return undefined;
    const known = routes.exact.get(path) ?? routes.seen.get(path);
    if (known) return known;
    for (const route of routes.lastParam) {
      const { prefix } = route;
      if (
        path.length > prefix.length && path.startsWith(prefix) &&
        path.indexOf("/", prefix.length) < 0
      ) {
        // Built by assignment: an object literal with a computed key takes V8's slow path.
        const params: Record<string, string> = {};
        params[route.name] = path.slice(prefix.length);
        const found = { handler: route.handler, params: Object.freeze(params) };
        // A polled read asks for the same few paths: kept, a later request allocates nothing.
        if (routes.seen.size >= SEEN_PATHS) routes.seen.clear();
        routes.seen.set(path, found);
        return found;
      }
    }
    return undefined;
  }
}

/** How many matched paths of parameter routes a method keeps (a scan of ids only churns them). */
const SEEN_PATHS = 64;

/**
 * The direct routes of one method; a path's match is made once (no allocation a request): the
 * exact paths' when set, a parameter route's when first asked for (`seen`, up to `SEEN_PATHS`).
 */
interface MethodRoutes {
  exact: Map<string, DirectMatch>;
  lastParam: Array<{ prefix: string; name: string; handler: RouteHandler }>;
  seen: Map<string, DirectMatch>;
}

/** The HTTP app, its direct routes, and how an error is answered as the app's `onError` does. */
export interface DirectApp {
  app: Hono;
  direct: DirectRoutes;
  fail: (error: unknown, request: Request) => Response;
}

/** No path parameters: the one empty object (compared by identity where a route reads none). */
export const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;

/** A request's path, or undefined when it has percent-escapes (Hono decodes those). */
export function pathOf(url: string): string | undefined {
  const start = url.indexOf("/", url.indexOf(":") + 3);
  const query = url.indexOf("?", start);
  const path = url.slice(start, query < 0 ? url.length : query);
  return path.includes("%") ? undefined : path;
}

/** What a direct route's handler reads of its request, as Hono's `HonoRequest` gives it. */
class DirectRequest {
  readonly raw: Request;
  #params: Record<string, string>;
  constructor(raw: Request, params: Record<string, string>) {
    this.raw = raw;
    this.#params = params;
  }
  header(name: string): string | undefined {
    return requestHeader(this.raw, name) ?? undefined;
  }
  param(): Record<string, string> {
    return this.#params;
  }
  query(): Record<string, string> {
    return Object.fromEntries(new URL(this.raw.url).searchParams);
  }
}

/**
 * The app with its direct routes in front: a request for one of `DIRECT_ROUTES` runs its route's
 * handler with a `DirectRequest` (two small objects where Hono's dispatch built its `Context`,
 * request wrapper and match, about 1.9 KB of garbage a request), its errors answered as Hono's
 * `onError` answers them; anything else is Hono's.
 */
export function directFirst<E extends object>(
  built: DirectApp,
): (request: Request, env: E) => Response | Promise<Response> {
  const { app, direct, fail } = built;
  if (direct.size === 0) return (request, env) => app.fetch(request, env);
  return (request, env) => {
    const method = request.method;
    const path = direct.takes(method) ? pathOf(request.url) : undefined;
    const found = path === undefined ? undefined : direct.match(method, path);
    if (!found) return app.fetch(request, env);
    try {
      const answer = found.handler({ req: new DirectRequest(request, found.params), env });
      return answer instanceof Promise ? answer.catch((error) => fail(error, request)) : answer;
    } catch (error) {
      return fail(error, request);
    }
  };
}
