/**
 * Errors as 5.0.0 clients know them (spec section 9, "Error codes"): HTTP
 * statuses 400, 401, 404, 500 and 503 only, and the five WebSocket error
 * types. Every stable code of the service maps onto one of them; the message
 * still says what happened and what to do.
 * @module
 */
import { asCueportError, type ErrorCodeName } from "../core/mod.ts";
import { httpError, type HttpErrorOptions } from "../net/http_error.ts";
import type { HttpErrorForm } from "../net/dialect.ts";

/** The WebSocket error types of 5.0.0. */
export const V5_ERROR_TYPES = [
  "AUTHENTICATION_FAILED",
  "ACTION_FAILED",
  "INVALID_MESSAGE",
  "RATE_LIMITED",
  "SERVER_ERROR",
] as const;

/** One 5.0.0 WebSocket error type. */
export type V5ErrorType = (typeof V5_ERROR_TYPES)[number];

/** Each stable code as a 5.0.0 WebSocket error type (typed: a new code must be placed here). */
export const V5_ERROR_TYPE_OF: Record<ErrorCodeName, V5ErrorType> = {
  INVALID_MESSAGE: "INVALID_MESSAGE",
  EDIT_REFUSED: "INVALID_MESSAGE",
  CORRUPT_MEDIA: "INVALID_MESSAGE",
  UNSUPPORTED_MEDIA: "INVALID_MESSAGE",
  PAYLOAD_TOO_LARGE: "INVALID_MESSAGE",
  METHOD_NOT_ALLOWED: "INVALID_MESSAGE",
  REQUEST_TIMEOUT: "INVALID_MESSAGE",
  IDEMPOTENCY_KEY_REUSED: "INVALID_MESSAGE",
  INVALID_SHADER: "INVALID_MESSAGE",
  INVALID_SHOW_FILE: "INVALID_MESSAGE",
  AUTHENTICATION_FAILED: "AUTHENTICATION_FAILED",
  API_ACCESS_DENIED: "AUTHENTICATION_FAILED",
  LOCAL_ONLY: "AUTHENTICATION_FAILED",
  INSUFFICIENT_SCOPE: "AUTHENTICATION_FAILED",
  HOST_NOT_ALLOWED: "AUTHENTICATION_FAILED",
  ORIGIN_NOT_ALLOWED: "AUTHENTICATION_FAILED",
  // Over the 5.0.0 WebSocket only actions run: a missing Project, Clip or Song fails the action.
  NOT_FOUND: "ACTION_FAILED",
  ACTION_FAILED: "ACTION_FAILED",
  NOT_READY: "ACTION_FAILED",
  TIMEOUT: "ACTION_FAILED",
  UNAVAILABLE: "ACTION_FAILED",
  NO_OUTPUT: "ACTION_FAILED",
  GROUP_NO_QUORUM: "ACTION_FAILED",
  GROUP_BEHIND: "ACTION_FAILED",
  GROUP_MEDIA_NOT_COPIED: "ACTION_FAILED",
  GROUP_OUTCOME_UNKNOWN: "ACTION_FAILED",
  GROUP_MEMBERS_ONLY: "AUTHENTICATION_FAILED",
  RANGE_NOT_SATISFIABLE: "INVALID_MESSAGE",
  RATE_LIMITED: "RATE_LIMITED",
  TOO_MANY_CONNECTIONS: "RATE_LIMITED",
  SERVER_ERROR: "SERVER_ERROR",
  INITIALIZATION_FAILED: "SERVER_ERROR",
  CONNECTION_FAILED: "SERVER_ERROR",
  DISK_FULL: "SERVER_ERROR",
};

/** The HTTP statuses of 5.0.0. */
export const V5_STATUSES: readonly number[] = [400, 401, 404, 500, 503];

/**
 * A 6.0 status as the nearest 5.0.0 one: 403 (plan, scope, local-only,
 * Host) is 401, 405 is 404, the other 4xx are 400, 429 and 504 are 503
 * (with `Retry-After` where there is one), 502 is 500.
 */
export function v5Status(status: number): number {
  if (V5_STATUSES.includes(status)) return status;
  if (status === 403) return 401;
  if (status === 405) return 404;
  if (status === 429 || status === 504) return 503;
  return status < 500 ? 400 : 500;
}

/** An error in the 5.0.0 HTTP form: the service's JSON body, at a 5.0.0 status. */
export function v5HttpError(error: unknown, options?: HttpErrorOptions): HttpErrorForm {
  const form = httpError(error, options);
  return { ...form, status: v5Status(form.status) };
}

/** `{type, message}`: an error as a 5.0.0 WebSocket message carries it. */
export function v5ErrorBody(error: unknown): { type: V5ErrorType; message: string } {
  const e = asCueportError(error);
  return { type: V5_ERROR_TYPE_OF[e.code], message: e.message };
}
