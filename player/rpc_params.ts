/**
 * The player's check of a request's params, with the schemas of the protocol
 * (`protocol/methods.ts`, declared once for both sides): each handler parses
 * its params first, so null params, a field of the wrong type or a missing
 * field is answered -32602 with a message naming the field, never -32603.
 * Unknown fields are ignored (a minor protocol version may add some); the
 * params of an action and of each edit are then checked against their
 * catalogs (`protocol/actions.ts`, `protocol/edits/`).
 *
 * `action.run`, the hottest request, is checked by a hand-compiled copy of its
 * schema (`actionRunParams`): it takes exactly what the schema takes and gives
 * the same params; anything it does not take goes to the schema, whose refusal
 * names the field. zod's parse of these params was about 0.7 us of the
 * player's CPU per action (a profile under `bench/http_bench.ts` load).
 * @module
 */
import { RpcErrorCode } from "../protocol/jsonrpc.ts";
import {
  Method,
  type MethodName,
  METHODS,
  type ParsedParams,
  parseOrRefuse,
} from "../protocol/methods.ts";

/**
 * Parses a request's params with its method's schema.
 * @throws {RpcError} INVALID_PARAMS naming the first bad field, e.g.
 * `Invalid params for action.run: params.name: Invalid input: expected string, received number`
 */
export function parseParams<M extends MethodName>(method: M, params: unknown): ParsedParams<M> {
  if (method === Method.ACTION_RUN) {
    const fast = actionRunParams(params);
    if (fast !== null) return fast as ParsedParams<M>;
  }
  return parseOrRefuse(METHODS[method].params, params, {
    code: RpcErrorCode.INVALID_PARAMS,
    what: `params for ${method}`,
    root: "params",
  }) as ParsedParams<M>;
}

type ActionRunParams = ParsedParams<typeof Method.ACTION_RUN>;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * `ActionRunParams` (protocol/methods.ts) compiled by hand: the parsed params
 * when the schema takes them (unknown fields left out, `params` and
 * `projectId` defaulted), null for anything else. A test holds it to the
 * schema on valid and invalid params alike.
 */
export function actionRunParams(raw: unknown): ActionRunParams | null {
  if (!isObject(raw)) return null;
  const { name, params = {}, projectId = null, velocity, idempotencyKey } = raw;
  if (typeof name !== "string" || !isObject(params)) return null;
  if (projectId !== null && (typeof projectId !== "string" || projectId.length === 0)) return null;
  const parsed: ActionRunParams = { name, params, projectId };
  if (velocity !== undefined) {
    if (!Number.isInteger(velocity) || (velocity as number) < 0 || (velocity as number) > 127) {
      return null;
    }
    parsed.velocity = velocity as number;
  }
  if (idempotencyKey !== undefined) {
    if (typeof idempotencyKey !== "string" || idempotencyKey.length > 512) return null;
    parsed.idempotencyKey = idempotencyKey;
  }
  return parsed;
}
