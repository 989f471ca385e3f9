/**
 * The player's check of a request's params, with the schemas of the protocol
 * (`protocol/methods.ts`, declared once for both sides): each handler parses
 * its params first, so null params, a field of the wrong type or a missing
 * field is answered -32602 with a message naming the field, never -32603.
 * Unknown fields are ignored (a minor protocol version may add some); the
 * params of an action and of each edit are then checked against their
 * catalogs (`protocol/actions.ts`, `protocol/edits/`).
 * @module
 */
import { RpcError, RpcErrorCode } from "../protocol/jsonrpc.ts";
import { type MethodName, METHODS, type ParsedParams } from "../protocol/methods.ts";

/**
 * Parses a request's params with its method's schema.
 * @throws {RpcError} INVALID_PARAMS naming the first bad field, e.g.
 * `Invalid params for action.run: params.name: Invalid input: expected string, received number`
 */
export function parseParams<M extends MethodName>(method: M, params: unknown): ParsedParams<M> {
  const parsed = METHODS[method].params.safeParse(params);
  if (parsed.success) return parsed.data as ParsedParams<M>;
  const issue = parsed.error.issues[0]!;
  const field = ["params", ...issue.path.map(String)].join(".");
  throw new RpcError(
    RpcErrorCode.INVALID_PARAMS,
    `Invalid params for ${method}: ${field}: ${issue.message}`,
  );
}
