/**
 * The one JSON error body of HTTP: routes throw, this maps.
 * @module
 */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { CueportError } from "../core/mod.ts";

/** Turns any thrown value into the error body; never leaks a stack. */
export function errorResponse(error: unknown, c: Context): Response {
  const e = error instanceof CueportError
    ? error
    : new CueportError("SERVER_ERROR", "Internal server error");
  const retry = e.details?.retryAfterSeconds;
  if (typeof retry === "number") c.header("Retry-After", String(retry));
  // The rest of a refused or stalled body is never read: the connection ends with the answer.
  if (e.code === "PAYLOAD_TOO_LARGE" || e.code === "REQUEST_TIMEOUT") {
    c.header("Connection", "close");
  }
  const status = e.status as ContentfulStatusCode;
  try {
    return c.json(e.toJSON(), status);
  } catch {
    // Details that cannot be serialized (too deep, a BigInt) must not turn a 4xx into a 500.
    return c.json({ error: { code: e.code, message: e.message } }, status);
  }
}
