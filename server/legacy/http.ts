/**
 * The 5.0.0 HTTP dialect: its routes, answers with 5.0.0 directions, errors
 * at 5.0.0 statuses, the deprecation headers, 30-day tokens. Served by the
 * HTTP engine (`server/routes`) on the 5.0.0 port; `server/service.ts`
 * composes them.
 * @module
 */
import type { HttpDialect } from "../net/dialect.ts";
import { deprecationHeaders, UsageLog, V5_TOKEN_LIFETIME_SECONDS } from "./deprecation.ts";
import { v5HttpError } from "./errors.ts";
import { v5NotFound, type V5RouteOptions, v5Routes } from "./routes.ts";
import { v5Json } from "./shapes.ts";

/** What the 5.0.0 HTTP dialect needs. */
export interface V5HttpOptions extends V5RouteOptions {
  /** Who still uses 5.0.0 (shared with the WebSocket dialect). */
  usage?: UsageLog;
}

/** The 5.0.0 HTTP dialect. */
export function v5HttpDialect(options: V5HttpOptions): HttpDialect {
  return {
    name: "5.0.0",
    routes: v5Routes(options),
    encode: v5Json,
    error: v5HttpError,
    notFound: (method, path) => v5NotFound(method, path, options.successor().http),
    headers: (request) => deprecationHeaders(request, options.successor),
    tokenLifetimeSeconds: V5_TOKEN_LIFETIME_SECONDS,
    seen: (address) => options.usage?.seen(address, "HTTP"),
  };
}
