/**
 * The direct route of the HTTP transport (issue 42): the action, the hottest
 * path of the service, served without Hono's router and `Context`, in front
 * of the Hono app (`routes/mod.ts`) that serves everything else.
 * @module
 */
import type { Hono } from "hono";

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

/** The direct routes' handlers by path (all POST). */
export type DirectRoutes = Map<string, RouteHandler>;

/**
 * The routes served without Hono's router and `Context` (`directFirst`): the action, the
 * hottest path of the service (issue 42), whose handler reads nothing Hono adds (no path
 * parameters, no query). Any other request, and any form of these paths Hono would read
 * otherwise (percent-escapes), goes through Hono as before.
 */
export const DIRECT_ROUTES: readonly string[] = ["POST /api/v1/action"];

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
  constructor(raw: Request) {
    this.raw = raw;
  }
  header(name: string): string | undefined {
    return this.raw.headers.get(name) ?? undefined;
  }
  param(): Record<string, string> {
    return NO_PARAMS;
  }
  query(): Record<string, string> {
    return Object.fromEntries(new URL(this.raw.url).searchParams);
  }
}

/**
 * The app with its direct routes in front: a POST to one of `DIRECT_ROUTES` runs its route's
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
    const handler = request.method === "POST" ? direct.get(pathOf(request.url) ?? "") : undefined;
    if (!handler) return app.fetch(request, env);
    try {
      const answer = handler({ req: new DirectRequest(request), env });
      return answer instanceof Promise ? answer.catch((error) => fail(error, request)) : answer;
    } catch (error) {
      return fail(error, request);
    }
  };
}
