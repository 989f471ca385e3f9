/**
 * Every action handler of the catalog, and the one entry that runs them.
 * @module
 */
import { ACTIONS, normalizedParamsSchema } from "../../protocol/actions.ts";
import { RpcErrorCode } from "../../protocol/jsonrpc.ts";
import type { ActionOutcome } from "../../protocol/methods.ts";
import { Refusal } from "../errors.ts";
import type { ActionContext, ActionHandler } from "./context.ts";
import { navigationActions } from "./navigation.ts";
import { playbackActions } from "./playback.ts";
import { seekControlActions } from "./seek_control.ts";
import { systemActions } from "./system.ts";

export type { ActionContext, AppServices } from "./context.ts";

const HANDLERS: Record<string, ActionHandler> = {
  ...playbackActions,
  ...navigationActions,
  ...seekControlActions,
  ...systemActions,
};

for (const spec of ACTIONS) {
  if (!HANDLERS[spec.name]) throw new Error(`Action "${spec.name}" has no handler`);
}

/**
 * Validates normalized params against the catalog and runs the action.
 * @throws {Refusal} when the rules refuse it; INVALID_PARAMS for bad params
 */
export async function runAction(
  name: string,
  ctx: Omit<ActionContext, "params"> & { params: unknown },
): Promise<ActionOutcome> {
  const handler = HANDLERS[name];
  if (!handler) throw new Refusal(`Unknown action "${name}"`, RpcErrorCode.METHOD_NOT_FOUND);
  const parsed = normalizedParamsSchema(name).safeParse(ctx.params ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Refusal(
      `Invalid params for ${name}: ${issue.path.join(".") || "params"}: ${issue.message}`,
      RpcErrorCode.INVALID_PARAMS,
    );
  }
  // The caller's fresh context takes the parsed params (a copy would read its getters).
  const context = ctx as ActionContext;
  context.params = parsed.data;
  try {
    return await handler(context);
  } finally {
    if (ctx.hasEngine) ctx.engine.settle();
  }
}
