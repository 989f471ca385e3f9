/**
 * CORS for browser control pages, by allow-list. Only browsers send an
 * `Origin` header, so requests without one (curl, Companion, scripts) pass
 * straight through at no cost.
 *
 * Hand-written rather than Hono's `cors` middleware (hono 4.13.19), which
 * differs in behaviour and in speed:
 * - it answers every `OPTIONS` with 204, where a request without
 *   `Access-Control-Request-Method` is no preflight and goes to the routes
 *   (405 with `Allow`, 404);
 * - its preflight for an origin not allowed still carries the allowed
 *   methods, headers and max age (here: nothing but `Vary: Origin`);
 * - it is an async middleware that runs for every request, Origin or not,
 *   so each request pays a promise and the middleware chain: a GET without
 *   Origin took 1.3 to 2.5 times as long with `cors()` as with this, in each
 *   of 9 rounds (`bench/hono_middleware_bench.ts`, in process on
 *   `app.fetch`, 3 runs on the 2-core VM at load 5-10: 7-24 us against
 *   10-44 us); the reads stay synchronous here.
 * Refusals before routing (rate limit, Host, Origin) are answered before
 * CORS in either case.
 * @module
 */

/** Options of `withCors`. */
export interface CorsOptions {
  /** Allowed origins; `*` allows any. */
  origins: readonly string[];
  methods: readonly string[];
  headers: readonly string[];
  maxAgeSeconds: number;
}

/**
 * A fetch handler behind CORS. `origin`: the request's `Origin` header (null without one) when the
 * caller has read it already (`checkRequestOrigin`); left out, it is read here.
 */
export type CorsHandler<E> = (
  request: Request,
  env: E,
  origin?: string | null,
) => Response | Promise<Response>;

/** Wraps a fetch handler with CORS: preflights answered, allowed origins echoed. */
export function withCors<E>(
  handler: (request: Request, env: E) => Response | Promise<Response>,
  options: CorsOptions,
): CorsHandler<E> {
  const anyOrigin = options.origins.includes("*");
  const isAllowed = (origin: string) => anyOrigin || options.origins.includes(origin);
  const answer = async (request: Request, info: E, origin: string) => {
    if (request.method === "OPTIONS" && request.headers.has("access-control-request-method")) {
      const headers = new Headers({ vary: "Origin" });
      if (isAllowed(origin)) {
        headers.set("access-control-allow-origin", origin);
        headers.set("access-control-allow-methods", options.methods.join(", "));
        headers.set("access-control-allow-headers", options.headers.join(", "));
        headers.set("access-control-max-age", String(options.maxAgeSeconds));
      }
      return new Response(null, { status: 204, headers });
    }
    const response = await handler(request, info);
    if (!isAllowed(origin)) return response;
    const headers = new Headers(response.headers);
    headers.set("access-control-allow-origin", origin);
    headers.append("vary", "Origin");
    return new Response(response.body, {
      status: response.status,
      statusText: response.statusText,
      headers,
    });
  };
  return (request, info, seen) => {
    const origin = seen === undefined ? request.headers.get("origin") : seen;
    return origin === null ? handler(request, info) : answer(request, info, origin);
  };
}
