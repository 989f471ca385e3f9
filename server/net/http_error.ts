/**
 * The one HTTP form of an error, for every answer given over HTTP: routes,
 * refusals before routing, the WebSocket port's upgrade answers.
 * @module
 */
import { asCueportError, type CueportError } from "../core/errors.ts";

/** What an answer may change of an error's usual HTTP form. */
export interface HttpErrorOptions {
  /** A status other than the code's (426 for a plain request on the WebSocket port). */
  status?: number;
  headers?: Record<string, string>;
}

/** The HTTP form of an error: status, headers and the JSON body. */
export function httpError(
  error: unknown,
  options: HttpErrorOptions = {},
): { status: number; headers: Record<string, string>; body: unknown } {
  const e = asCueportError(error);
  const headers: Record<string, string> = {};
  const retry = e.details?.retryAfterSeconds;
  if (typeof retry === "number") headers["retry-after"] = String(retry);
  // The rest of a refused or stalled body is never read: the connection ends with the answer.
  if (e.code === "PAYLOAD_TOO_LARGE" || e.code === "REQUEST_TIMEOUT") {
    headers["connection"] = "close";
  }
  Object.assign(headers, options.headers);
  return { status: options.status ?? e.status, headers, body: bodyOf(e) };
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

/** Any thrown value as an HTTP answer; never leaks a stack. */
export function errorAnswer(error: unknown, options?: HttpErrorOptions): Response {
  const { status, headers, body } = httpError(error, options);
  return Response.json(body, { status, headers });
}
