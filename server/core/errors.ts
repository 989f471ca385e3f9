/**
 * The one error class of the service, with stable machine codes. Every
 * transport maps it to its wire form; HTTP uses `status`.
 * @module
 */

import { diskFullMessage, isDiskFull } from "../../lib/disk_full.ts";

/** Stable error codes (the spec's WebSocket error types, plus a few of ours). */
export const ErrorCode = {
  INVALID_MESSAGE: 400,
  /** An edit its rules refuse (a conflict such as a position past the end). */
  EDIT_REFUSED: 400,
  /** A media file that looks like a supported format but is broken. */
  CORRUPT_MEDIA: 400,
  AUTHENTICATION_FAILED: 401,
  /** The group's media route without the group's member token (docs/rigs.md, "Media between rigs"). */
  GROUP_MEMBERS_ONLY: 401,
  API_ACCESS_DENIED: 403,
  LOCAL_ONLY: 403,
  INSUFFICIENT_SCOPE: 403,
  HOST_NOT_ALLOWED: 403,
  ORIGIN_NOT_ALLOWED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  /** A client too slow to send its request or upload (see the timeouts in docs/security.md). */
  REQUEST_TIMEOUT: 408,
  /**
   * No output runs (the `output` setting is `none`, or no display or browser was found): the
   * output's picture cannot be taken until one does. A state the client can change, not a fault.
   */
  NO_OUTPUT: 409,
  PAYLOAD_TOO_LARGE: 413,
  /** A `Range` outside the file, or several ranges (the group's media route). */
  RANGE_NOT_SATISFIABLE: 416,
  /** A media file whose bytes are no format the player supports. */
  UNSUPPORTED_MEDIA: 415,
  /** An idempotency key sent again with a different request (docs/api.md, "Safe retries"). */
  IDEMPOTENCY_KEY_REUSED: 422,
  /** A preset's shader code that does not pass its checks; `details.problems` at lines and columns. */
  INVALID_SHADER: 422,
  /** A show file that is not whole or not what its manifest says (docs/projects.md); nothing was kept. */
  INVALID_SHOW_FILE: 422,
  RATE_LIMITED: 429,
  ACTION_FAILED: 500,
  SERVER_ERROR: 500,
  INITIALIZATION_FAILED: 500,
  CONNECTION_FAILED: 502,
  NOT_READY: 503,
  /** A connection budget is full (see docs/security.md); retry later. */
  TOO_MANY_CONNECTIONS: 503,
  /** What the request needs is not on this machine (ffmpeg to capture a camera). */
  UNAVAILABLE: 503,
  /**
   * This rig is cut off from its group's etcd quorum (docs/rigs.md): it refuses edits and plays on;
   * edit on a rig that can, or restore its network.
   */
  GROUP_NO_QUORUM: 503,
  /**
   * This rig waits to apply an entry of its group's log (its imported file not copied yet, its
   * player away; `GET /api/v1/group` `log.waitingFor`): it refuses edits until it has; edit on
   * another rig, or bring the file's holder back.
   */
  GROUP_BEHIND: 503,
  TIMEOUT: 504,
  /**
   * A rig of the group did not get an imported file before the import's deadline (docs/rigs.md):
   * nothing was imported; the message names the rig.
   */
  GROUP_MEDIA_NOT_COPIED: 504,
  /**
   * A rig group's edit whose commit was not answered past its deadline (docs/rigs.md): it may or
   * may not be in; the message names the entry and how to check. Never a refusal.
   */
  GROUP_OUTCOME_UNKNOWN: 504,
  /** The disk of the player's data dir is full: nothing of the request was kept (free space, retry). */
  DISK_FULL: 507,
} as const;

/** One of the stable error codes. */
export type ErrorCodeName = keyof typeof ErrorCode;

/** An error with a stable code, a message that says what to fix, and optional details. */
export class CueportError extends Error {
  /** Stable machine code. */
  readonly code: ErrorCodeName;
  /** Structured detail, such as the offending field. */
  readonly details: Record<string, unknown> | undefined;

  /**
   * Builds the error. `fault`: the unexpected failure this answers for (a
   * player's fault), kept as `cause` for the log (`unexpectedOf`), never sent.
   */
  constructor(
    code: ErrorCodeName,
    message: string,
    details?: Record<string, unknown>,
    fault?: unknown,
  ) {
    super(message, fault === undefined ? undefined : { cause: fault });
    this.name = "CueportError";
    this.code = code;
    this.details = details;
  }

  /** The HTTP status for this code. */
  get status(): number {
    return ErrorCode[this.code];
  }

  /** The JSON body every transport sends for an error (`errorBody`, under `error`). */
  toJSON(): { error: WireError } {
    return { error: errorBody(this) };
  }
}

/** What every wire carries of an error: `{code, message, details?}`. */
export interface WireError {
  code: ErrorCodeName;
  message: string;
  details?: Record<string, unknown>;
}

/**
 * Any thrown value as the service's error: a `CueportError` as it is,
 * a full disk as DISK_FULL, anything else as SERVER_ERROR that leaks
 * neither its message nor its stack. Every transport maps errors through this, then to its wire.
 */
export function asCueportError(error: unknown): CueportError {
  if (error instanceof CueportError) return error;
  // A write of the service's own (a device paired, a key rotated) on a full disk.
  if (isDiskFull(error)) return new CueportError("DISK_FULL", diskFullMessage(null));
  return new CueportError("SERVER_ERROR", "Internal server error");
}

/**
 * The one serialization fallback: any thrown value as the body every wire
 * sends (HTTP's `error`, the WebSocket's `error`, an OSC reply's `data`,
 * MCP's `data` and tool result). Anything but a `CueportError` is
 * SERVER_ERROR "Internal server error" (`asCueportError`); details that
 * cannot be serialized (nested too deep, a BigInt, a cycle) are left out,
 * so that the error still goes out with its code and message (a 4xx never
 * turns into a 500).
 * @example
 * ```ts
 * errorBody(new TypeError("x is undefined")); // {code: "SERVER_ERROR", message: "Internal server error"}
 * ```
 */
export function errorBody(error: unknown): WireError {
  const e = asCueportError(error);
  if (e.details === undefined) return { code: e.code, message: e.message };
  try {
    JSON.stringify(e.details);
    return { code: e.code, message: e.message, details: e.details };
  } catch {
    return { code: e.code, message: e.message };
  }
}

/**
 * What the log says of a failure that is no `CueportError` (what `errorBody`
 * keeps off the wire: its stack), or null for a `CueportError`, which is an
 * answer, not a fault, unless it answers for a fault (its `cause`: a
 * player's), which is then what the log says. Every wire logs the faults of
 * the operations it runs with it, so that a SERVER_ERROR can be found on the
 * service whatever transport answered it.
 */
export function unexpectedOf(error: unknown): string | null {
  if (error instanceof CueportError) {
    return error.cause === undefined ? null : unexpectedOf(error.cause);
  }
  return error instanceof Error ? error.stack ?? String(error) : String(error);
}

/** A field renamed by a transport: its name on the wire, and how a message calls it. */
export interface WireField {
  field: string;
  /** How the message names it (`args[0] (otp)`); default `field`. */
  label?: string;
}

/**
 * A refusal naming the field as the transport's wire names it (OSC's
 * `/connect` names `args[0]` where `pair` says `otp`; an MCP tool names
 * `clipID` where the action rules say `params[0] (clipID)`): `rename` maps
 * the core's field to the wire's, or gives undefined to leave it. Anything
 * but a `CueportError` naming a field comes back as it is.
 */
export function withWireField(
  error: unknown,
  rename: (field: string) => WireField | undefined,
): unknown {
  const field = error instanceof CueportError ? error.details?.field : undefined;
  if (typeof field !== "string") return error;
  const wire = rename(field);
  if (!wire) return error;
  const e = error as CueportError;
  const message = e.message.split(field).join(wire.label ?? wire.field);
  return new CueportError(e.code, message, { ...e.details, field: wire.field });
}
