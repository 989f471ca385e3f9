/**
 * JSON-RPC 2.0 message types shared by the player and the server.
 *
 * The player protocol (docs/player-protocol.md) frames one message per line on
 * stdin/stdout. These types describe one decoded line.
 * @module
 */

/** A request id; the server uses increasing integers. */
export type RpcId = number | string;

/** A call that expects a response with the same id. */
export interface RpcRequest {
  jsonrpc: "2.0";
  id: RpcId;
  method: string;
  params?: unknown;
}

/** A one-way message; no response follows. */
export interface RpcNotification {
  jsonrpc: "2.0";
  method: string;
  params?: unknown;
}

/** The error member of a failed response. */
export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** The answer to a request: exactly one of `result` and `error`. */
export type RpcResponse =
  | { jsonrpc: "2.0"; id: RpcId | null; result: unknown }
  | { jsonrpc: "2.0"; id: RpcId | null; error: RpcErrorObject };

/** Any message that may travel on the pipe. */
export type RpcMessage = RpcRequest | RpcNotification | RpcResponse;

/** Standard and protocol-specific JSON-RPC error codes. */
export const RpcErrorCode = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  /** The player understood the action but its rules refuse it. */
  ACTION_REFUSED: -32000,
  /** A project, song, clip, preset or file named in the call does not exist. */
  NOT_FOUND: -32001,
  /** The call needs an entitlement the player's plan lacks. */
  NOT_ENTITLED: -32002,
  /** A media file's bytes are not a format the player supports. */
  UNSUPPORTED_MEDIA: -32003,
  /** A media file looks like a supported format but is broken. */
  CORRUPT_MEDIA: -32004,
  /** Since 1.2: what the call needs is not on this machine (ffmpeg to capture a camera). */
  UNAVAILABLE: -32005,
  /**
   * A field's content is well formed but wrong: a preset's shader code that
   * does not pass its checks. `data`: `{field, edit, problems}`, the field
   * relative to the edit (`params.code`), the edit's index in the batch and
   * `[{line, column, message}]` in the user's code.
   */
  INVALID_CODE: -32006,
  /**
   * A write found the disk of the data dir full (`lib/disk_full.ts`); nothing
   * of the call was kept, and the message says what to free.
   */
  DISK_FULL: -32007,
  /**
   * Since 1.6: a show file (`show.import`) that is not whole or not what its manifest
   * says; the message names the entry and what mismatched, and nothing of it was kept.
   */
  INVALID_SHOW_FILE: -32008,
} as const;

/**
 * The `data` of an INTERNAL_ERROR the player sends on purpose, its message
 * written for the user (an import stopped or whose copy failed); any other
 * INTERNAL_ERROR is a fault whose text the service logs and never sends.
 */
export const DELIBERATE: { readonly isDeliberate: true } = { isDeliberate: true };

/** Raised for a failed response; `code` and `data` come from the wire. */
export class RpcError extends Error {
  /** The JSON-RPC error code. */
  readonly code: number;
  /** The optional error data from the wire. */
  readonly data: unknown;

  /** Builds the error from its wire members. */
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = "RpcError";
    this.code = code;
    this.data = data;
  }

  /** The wire form of this error. */
  toObject(): RpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Whether a decoded value is a request (has `method` and `id`). */
export function isRequest(msg: RpcMessage): msg is RpcRequest {
  return "method" in msg && "id" in msg && msg.id !== undefined;
}

/** Whether a decoded value is a notification (has `method`, no `id`). */
export function isNotification(msg: RpcMessage): msg is RpcNotification {
  return "method" in msg && !("id" in msg);
}

/** Whether a decoded value is a response (no `method`). */
export function isResponse(msg: RpcMessage): msg is RpcResponse {
  return !("method" in msg);
}

/**
 * Checks that a parsed JSON value has the shape of a JSON-RPC 2.0 message.
 * @throws {RpcError} with code INVALID_REQUEST when it does not
 */
export function toRpcMessage(value: unknown): RpcMessage {
  if (!isRecord(value) || value.jsonrpc !== "2.0") {
    throw new RpcError(RpcErrorCode.INVALID_REQUEST, "Message is not a JSON-RPC 2.0 object");
  }
  if (typeof value.method === "string") return value as unknown as RpcMessage;
  if ("result" in value || isRecord(value.error)) return value as unknown as RpcResponse;
  throw new RpcError(RpcErrorCode.INVALID_REQUEST, "Message has neither method nor result");
}
