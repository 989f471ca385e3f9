/**
 * The one JSON error body of HTTP, on Hono's context: routes throw, this maps
 * (through `server/net/http_error.ts`, which every HTTP answer shares).
 * @module
 */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { httpError } from "../net/http_error.ts";

export { errorAnswer } from "../net/http_error.ts";

/** Turns any thrown value into the error body on Hono's context; never leaks a stack. */
export function errorResponse(error: unknown, c: Context): Response {
  const { status, headers, body } = httpError(error);
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
  return c.json(body, status as ContentfulStatusCode);
}
