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
import {
  type ActionRunParams,
  MAX_DATE_MS,
  MAX_IDEMPOTENCY_KEY,
  Method,
  type MethodName,
  METHODS,
  type ParsedParams,
  parseOrRefuse,
} from "../protocol/methods.ts";
import { isVelocity } from "../protocol/action_rules.ts";
import { isPlainObject } from "./actions/params_check.ts";

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

/**
 * `action.run`'s params, checked at the door as `ActionRunParams` declares them: the common
 * valid request by a plain check (no zod parse on the hottest path: 0.7 us a request,
 * measured), anything else by `parseParams`, which words the refusal. The action's own params
 * are checked against its catalog entry after (`player/actions/mod.ts`).
 * @throws {RpcError} INVALID_PARAMS naming the first bad field
 */
export function parseActionRun(params: unknown): ActionRunParams {
  if (!isPlainObject(params)) return parseParams(Method.ACTION_RUN, params);
  const { name, params: actionParams = {}, projectId = null, velocity, idempotencyKey, due, at } =
    params;
  const isValid = typeof name === "string" && isPlainObject(actionParams) &&
    (projectId === null || (typeof projectId === "string" && projectId.length > 0)) &&
    (velocity === undefined || isVelocity(velocity)) &&
    (idempotencyKey === undefined ||
      (typeof idempotencyKey === "string" && idempotencyKey.length <= MAX_IDEMPOTENCY_KEY)) &&
    (due === undefined || Number.isFinite(due)) &&
    (at === undefined || typeof at === "number" && Math.abs(at) <= MAX_DATE_MS);
  if (!isValid) return parseParams(Method.ACTION_RUN, params);
  const parsed: ActionRunParams = { name, params: actionParams, projectId };
  if (velocity !== undefined) parsed.velocity = velocity as number;
  if (idempotencyKey !== undefined) parsed.idempotencyKey = idempotencyKey;
  if (due !== undefined) parsed.due = due as number;
  if (at !== undefined) parsed.at = at as number;
  return parsed;
}
