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
import { RpcErrorCode } from "../protocol/jsonrpc.ts";
import { type MethodName, METHODS, type ParsedParams, parseOrRefuse } from "../protocol/methods.ts";

/**
 * Parses a request's params with its method's schema.
 * @throws {RpcError} INVALID_PARAMS naming the first bad field, e.g.
 * `Invalid params for action.run: params.name: Invalid input: expected string, received number`
 */
export function parseParams<M extends MethodName>(method: M, params: unknown): ParsedParams<M> {
  return parseOrRefuse(METHODS[method].params, params, {
    code: RpcErrorCode.INVALID_PARAMS,
    what: `params for ${method}`,
    root: "params",
  }) as ParsedParams<M>;
}
