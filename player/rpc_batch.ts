/**
 * `action.batch` (protocol 1.11): the actions the service wrote together, in one request. Each
 * runs in order exactly as its own `action.run` would, checked on its own, and has its own entry
 * in the answer: its outcome, or its refusal as an error object. An action that writes the
 * Project holds the ones after it until it is done, as it holds the order.
 * @module
 */
import type { RpcErrorObject } from "../protocol/jsonrpc.ts";
import {
  ACTION_BATCH_MAX,
  type ActionBatchResult,
  type ActionOutcome,
  Method,
} from "../protocol/methods.ts";
import { isPlainObject } from "./actions/params_check.ts";
import { parseParams } from "./rpc_params.ts";

/** One action's run, as `action.run` runs its params. */
type RunOne = (params: unknown) => ActionOutcome | Promise<ActionOutcome>;

/**
 * Runs each action of `params.actions` with `run`, in order; a refusal (what `run` throws or
 * rejects with) becomes that action's entry, `{error}`, by `errorOf`, and the next one runs.
 * Synchronous while every action is.
 * @throws {RpcError} INVALID_PARAMS when `params` is no `{actions: [...]}` of 1 to `ACTION_BATCH_MAX`
 */
export function runActionBatch(
  params: unknown,
  run: RunOne,
  errorOf: (error: unknown) => RpcErrorObject,
): ActionBatchResult | Promise<ActionBatchResult> {
  const actions = batchActions(params);
  const outcomes: ActionBatchResult["outcomes"] = new Array(actions.length);
  let at = 0;
  const step = (): ActionBatchResult | Promise<ActionBatchResult> => {
    for (; at < actions.length; at++) {
      let outcome: ActionOutcome | Promise<ActionOutcome>;
      try {
        outcome = run(actions[at]);
      } catch (error) {
        outcomes[at] = { error: errorOf(error) };
        continue;
      }
      if (outcome instanceof Promise) {
        const index = at++;
        return outcome.then(
          (done) => void (outcomes[index] = done),
          (error) => void (outcomes[index] = { error: errorOf(error) }),
        ).then(step);
      }
      outcomes[at] = outcome;
    }
    return { outcomes };
  };
  return step();
}

/** The batch's actions, by a plain check; anything else is refused by the schema, which words it. */
function batchActions(params: unknown): unknown[] {
  if (isPlainObject(params)) {
    const { actions } = params;
    if (Array.isArray(actions) && actions.length > 0 && actions.length <= ACTION_BATCH_MAX) {
      return actions;
    }
  }
  return parseParams(Method.ACTION_BATCH, params).actions;
}
