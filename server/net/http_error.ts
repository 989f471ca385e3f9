/**
 * The one HTTP form of an error, for every answer given over HTTP: routes,
 * refusals before routing, the WebSocket port's upgrade answers, OSCQuery.
 * The body is the core's `errorBody` (the one serialization fallback); an
 * interface version changes only the status (5.0.0's `v5HttpError` wraps
 * this one).
 * @module
 */
import { asCueportError, errorBody } from "../core/errors.ts";

/** What an answer may change of an error's usual HTTP form. */
export interface HttpErrorOptions {
  /** A status other than the code's (426 for a plain request on the WebSocket port). */
  status?: number;
  headers?: Record<string, string>;
}

/** The HTTP form of an error: status, headers and the JSON body. */
export interface HttpErrorForm {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** The HTTP form of any thrown value: status, headers and the JSON body `{error}`. */
export function httpError(error: unknown, options: HttpErrorOptions = {}): HttpErrorForm {
  const e = asCueportError(error);
  const headers: Record<string, string> = {};
  const retry = e.details?.retryAfterSeconds;
  if (typeof retry === "number") headers["retry-after"] = String(retry);
  // The rest of a refused or stalled body is never read: the connection ends with the answer.
  if (e.code === "PAYLOAD_TOO_LARGE" || e.code === "REQUEST_TIMEOUT") {
    headers["connection"] = "close";
  }
  Object.assign(headers, options.headers);
  return { status: options.status ?? e.status, headers, body: { error: errorBody(e) } };
}

/**
 * Any thrown value as an HTTP answer; never leaks a stack. `form` is the
 * mapping of an interface version other than 6.0's (the 5.0.0 statuses).
 */
export function errorAnswer(
  error: unknown,
  options?: HttpErrorOptions,
  form: (error: unknown, options?: HttpErrorOptions) => HttpErrorForm = httpError,
): Response {
  const { status, headers, body } = form(error, options);
  return Response.json(body, { status, headers });
}
