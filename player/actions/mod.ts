/**
 * Every action handler of the catalog, and the one entry that runs them. The
 * service checked the action at its edge (`server/core/action_rules.ts`); the
 * player checks the params once more, against the same declaration
 * (`normalizedParamsSchema`, compiled for the valid case in `params_check.ts`),
 * because it writes what it is sent to disk and any program may speak the player
 * protocol (`docs/player-protocol.md`): a malformed `action.run` is refused with
 * INVALID_PARAMS, never saved.
 * @module
 */
import {
  type ActionParams,
  ACTIONS,
  type NormalizedAction,
  normalizedParamsSchema,
} from "../../protocol/actions.ts";
import { VELOCITY } from "../../protocol/action_rules.ts";
import { RpcErrorCode } from "../../protocol/jsonrpc.ts";
import type { ActionOutcome } from "../../protocol/methods.ts";
import { quoted, Refusal } from "../errors.ts";
import { type ActionHandler, ActionRun, type AppServices } from "./context.ts";
import { hasValidParams } from "./params_check.ts";
import { type Lateness, lateNote, ON_TIME } from "./late.ts";
import type { ProjectEngine } from "../engine/project_engine.ts";
import { navigationActions } from "./navigation.ts";
import { playbackActions } from "./playback.ts";
import { seekControlActions } from "./seek_control.ts";
import { systemActions } from "./system.ts";
import { displayActions } from "./display.ts";
import { regionActions } from "./region.ts";

export type { ActionContext, AppServices } from "./context.ts";

const HANDLERS: Record<string, ActionHandler> = {
  ...playbackActions,
  ...navigationActions,
  ...seekControlActions,
  ...systemActions,
  ...displayActions,
  ...regionActions,
};

for (const spec of ACTIONS) {
  if (!HANDLERS[spec.name]) throw new Error(`Action "${spec.name}" has no handler`);
}

/** Each action's declared defaults of its optional params (`protocol/actions.ts`). */
const DEFAULTS: ReadonlyMap<string, ActionParams> = new Map(
  ACTIONS.map((spec) => [
    spec.name,
    Object.fromEntries(
      spec.params.flatMap((p) => p.default === undefined ? [] : [[p.name, p.default]]),
    ),
  ]),
);

/**
 * The params of the action `name` as the catalog accepts them: the compiled check says yes
 * at once for valid ones (`params_check.ts`); anything else is parsed by the catalog's schema,
 * which words the refusal.
 * @throws {Refusal} INVALID_PARAMS naming the first bad param
 */
function checkedParams(name: string, raw: unknown): ActionParams {
  if (hasValidParams(name, raw)) return raw;
  const parsed = normalizedParamsSchema(name).safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new Refusal(
    `Invalid params for ${name}: ${issue.path.join(".") || "params"}: ${issue.message}`,
    RpcErrorCode.INVALID_PARAMS,
  );
}

/**
 * Validates normalized params against the catalog and runs the action on
 * `engine` (the target Project's; none when no Project is open), its optional
 * params defaulted as declared and velocity full when absent. A synchronous
 * action is answered without a promise; one that writes the Project answers with one. One run
 * `late` (protocol 1.14) starts its Clips where they would be, and its message says how late
 * it ran.
 * @throws {Refusal} when the rules refuse it; INVALID_PARAMS for bad params
 */
export function runAction(
  action: Pick<NormalizedAction, "name" | "params" | "velocity">,
  engine: ProjectEngine | undefined,
  app: AppServices,
  late: Lateness = ON_TIME,
): ActionOutcome | Promise<ActionOutcome> {
  const { name } = action;
  // Own members only: "toString" is no action.
  const handler = Object.hasOwn(HANDLERS, name) ? HANDLERS[name] : undefined;
  if (!handler) throw new Refusal(`Unknown action ${quoted(name)}`, RpcErrorCode.METHOD_NOT_FOUND);
  const params = { ...DEFAULTS.get(name), ...checkedParams(name, action.params ?? {}) };
  let outcome: ActionOutcome | Promise<ActionOutcome>;
  try {
    const velocity = action.velocity ?? VELOCITY.default;
    outcome = handler(new ActionRun(engine, app, params, velocity, late.catchUpMs));
  } catch (error) {
    engine?.settle();
    throw error;
  }
  if (outcome instanceof Promise) {
    return outcome.then((o) => noted(o, late)).finally(() => engine?.settle());
  }
  engine?.settle();
  return noted(outcome, late);
}

/** `outcome`, its message saying how late it ran when it did. */
function noted(outcome: ActionOutcome, late: Lateness): ActionOutcome {
  if (late.byMs === 0) return outcome;
  return { ...outcome, message: outcome.message + lateNote(late) };
}
