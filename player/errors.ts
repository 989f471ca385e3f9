/**
 * The player's refusal error: an action or call its rules do not allow.
 * The RPC server turns it into a JSON-RPC error with the same code.
 * @module
 */
import { RpcErrorCode } from "../protocol/jsonrpc.ts";

/** An action refused by the player's rules, or a reference to something missing. */
export class Refusal extends Error {
  /** The JSON-RPC error code this maps to. */
  readonly code: number;
  /** Structured detail sent as the JSON-RPC error's `data` (INVALID_CODE: field, edit, problems). */
  readonly data: Record<string, unknown> | undefined;
  /** Builds a refusal; `code` defaults to ACTION_REFUSED. */
  constructor(
    message: string,
    code: number = RpcErrorCode.ACTION_REFUSED,
    data?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "Refusal";
    this.code = code;
    this.data = data;
  }
}

/**
 * The refusal of `method` (a delete, a close, a show import's `replace`), which would take away
 * Project `id` while imports copy `files` file(s) into its folder.
 */
export function importingRefusal(id: string, files: number, method: string): Refusal {
  return new Refusal(
    `Project "${id}" is receiving imported files: wait for the import of ${files} file(s) to ` +
      `finish, or cancel it, then send ${method} again`,
  );
}

/** Throws a refusal with `message` unless `condition` holds. */
export function ensure(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Refusal(message);
}

/**
 * `value` in double quotes for an error message, cut to `max` characters: a
 * name in a hostile request may be megabytes long.
 * @example
 * ```ts
 * quoted("PLAY_IN"); // '"PLAY_IN"'
 * ```
 */
export function quoted(value: unknown, max = 80): string {
  const text = String(value);
  return `"${text.length > max ? `${text.slice(0, max)}...` : text}"`;
}
