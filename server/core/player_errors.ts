/**
 * What the player's JSON-RPC errors mean to clients: the one map from the
 * player protocol's error codes (`protocol/jsonrpc.ts`, docs/player-protocol.md)
 * to the service's stable codes, for actions, edits and every other request.
 * The transports then give the `CueportError` its wire form.
 * @module
 */
import { RpcError, RpcErrorCode } from "../../protocol/jsonrpc.ts";
import { CueportError, type ErrorCodeName } from "./errors.ts";

/** Each player error code as a stable code (an edit's refusal is EDIT_REFUSED, below). */
const CODES: ReadonlyMap<number, ErrorCodeName> = new Map<number, ErrorCodeName>([
  [RpcErrorCode.ACTION_REFUSED, "ACTION_FAILED"],
  [RpcErrorCode.NOT_FOUND, "NOT_FOUND"],
  [RpcErrorCode.INVALID_PARAMS, "INVALID_MESSAGE"],
  [RpcErrorCode.NOT_ENTITLED, "API_ACCESS_DENIED"],
  [RpcErrorCode.UNAVAILABLE, "UNAVAILABLE"],
  [RpcErrorCode.UNSUPPORTED_MEDIA, "UNSUPPORTED_MEDIA"],
  [RpcErrorCode.CORRUPT_MEDIA, "CORRUPT_MEDIA"],
  [RpcErrorCode.DISK_FULL, "DISK_FULL"],
  [RpcErrorCode.INVALID_SHOW_FILE, "INVALID_SHOW_FILE"],
]);

/** What `fromPlayerError` knows of the request that failed. */
export interface PlayerRequestKind {
  /** An edit (`edit.apply`); `isBatch`: its body gave `edits` (a field is then under `edits.<i>.`). */
  edit?: { isBatch: boolean };
  /**
   * `output.frame`, whose -32005 means that no output runs (docs/player-protocol.md): NO_OUTPUT
   * (409), the client's to change, where -32005 elsewhere is 503 UNAVAILABLE.
   */
  outputFrame?: boolean;
}

/**
 * A failure of a request to the player as the service's error: a
 * `CueportError` as it is; a player error by its code (the player's message
 * kept: it says what to fix); a failure the player reports on purpose
 * (INTERNAL_ERROR marked `isDeliberate`, e.g. an import stopped)
 * SERVER_ERROR with its message; anything else, the player's faults
 * included, SERVER_ERROR "Internal server error", its text kept for the log
 * only (`unexpectedOf`).
 */
export function fromPlayerError(error: unknown, kind: PlayerRequestKind = {}): CueportError {
  if (error instanceof CueportError) return error;
  if (!(error instanceof RpcError)) return playerFault(error);
  if (error.code === RpcErrorCode.INVALID_CODE) return invalidCode(error, kind.edit?.isBatch);
  if (error.code === RpcErrorCode.ACTION_REFUSED && kind.edit) {
    return new CueportError("EDIT_REFUSED", error.message, budgetDetails(error.data));
  }
  if (error.code === RpcErrorCode.METHOD_NOT_FOUND) {
    return new CueportError(
      "UNAVAILABLE",
      `The player does not offer this (${error.message}): it speaks an older protocol`,
    );
  }
  if (error.code === RpcErrorCode.UNAVAILABLE && kind.outputFrame) {
    return new CueportError("NO_OUTPUT", error.message);
  }
  const code = CODES.get(error.code);
  if (code && kind.edit) return fieldNamed(code, error, kind.edit.isBatch);
  if (code) return new CueportError(code, error.message);
  return isDeliberate(error) ? new CueportError("SERVER_ERROR", error.message) : playerFault(error);
}

/** A fault of the player (or of its pipe) as the client sees it; the log gets `fault`. */
function playerFault(fault: unknown): CueportError {
  return new CueportError("SERVER_ERROR", "Internal server error", undefined, fault);
}

/** Whether the player sent this failure on purpose (`data.isDeliberate`, docs/player-protocol.md). */
function isDeliberate(error: RpcError): boolean {
  return error.code === RpcErrorCode.INTERNAL_ERROR &&
    (error.data as { isDeliberate?: unknown } | undefined)?.isDeliberate === true;
}

/**
 * An edit's refusal by its code, naming its field (`data.field`) by its path in the body as
 * `details.field`, as the service's own checks do; none when it names none.
 */
function fieldNamed(code: ErrorCodeName, error: RpcError, isBatch: boolean): CueportError {
  const named = fieldPath(error, isBatch);
  if (!named) return new CueportError(code, error.message);
  return new CueportError(code, named.message, { field: named.path });
}

/**
 * The field a player's refusal names (`data.field`, `fallback` when none), as its path in the
 * request's body (`edits.<data.edit>.` before it in a batch), and the message naming that path.
 */
function fieldPath(
  error: RpcError,
  isBatch: boolean,
  fallback?: string,
): { path: string; message: string } | null {
  const data = (error.data ?? {}) as { field?: unknown; edit?: unknown };
  const field = typeof data.field === "string" ? data.field : fallback;
  if (field === undefined) return null;
  const path = isBatch ? `edits.${typeof data.edit === "number" ? data.edit : 0}.${field}` : field;
  return { path, message: error.message.replace(`Invalid ${field}`, `Invalid ${path}`) };
}

/** INVALID_CODE as a 422 naming the field by its path in the body, with the problems. */
function invalidCode(error: RpcError, isBatch = false): CueportError {
  const { path, message } = fieldPath(error, isBatch, "params.code")!;
  const problems = (error.data as { problems?: unknown } | undefined)?.problems;
  return new CueportError("INVALID_SHADER", message, {
    field: path,
    problems: Array.isArray(problems) ? problems : [],
  });
}

/** A texture budget refusal's details (`player/output/texture_budget.ts`), else none. */
function budgetDetails(data: unknown): Record<string, unknown> | undefined {
  const d = data as Record<string, unknown> | null | undefined;
  if (d?.reason !== "TEXTURE_BUDGET") return undefined;
  return { reason: d.reason, budgetBytes: d.budgetBytes, wouldUseBytes: d.wouldUseBytes };
}
