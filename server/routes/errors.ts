/**
 * The one JSON error body of HTTP: routes throw, this maps.
 * @module
 */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { asCueportError, type CueportError } from "../core/mod.ts";

/** The HTTP form of an error: status, headers and the JSON body text. */
function httpError(error: unknown): { e: CueportError; headers: Record<string, string> } {
  const e = asCueportError(error);
  const headers: Record<string, string> = {};
  const retry = e.details?.retryAfterSeconds;
  if (typeof retry === "number") headers["retry-after"] = String(retry);
  // The rest of a refused or stalled body is never read: the connection ends with the answer.
  if (e.code === "PAYLOAD_TOO_LARGE" || e.code === "REQUEST_TIMEOUT") {
    headers["connection"] = "close";
  }
  return { e, headers };
}

function bodyOf(e: CueportError): unknown {
  try {
    JSON.stringify(e.details);
    return e.toJSON();
  } catch {
    // Details that cannot be serialized (too deep, a BigInt) must not turn a 4xx into a 500.
    return { error: { code: e.code, message: e.message } };
  }
}

/** Turns any thrown value into the error body on Hono's context; never leaks a stack. */
export function errorResponse(error: unknown, c: Context): Response {
  const { e, headers } = httpError(error);
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
  return c.json(bodyOf(e), e.status as ContentfulStatusCode);
}

/** The same answer outside Hono (refusals before routing, the WebSocket upgrade). */
export function errorAnswer(error: unknown): Response {
  const { e, headers } = httpError(error);
  return Response.json(bodyOf(e), { status: e.status, headers });
}
