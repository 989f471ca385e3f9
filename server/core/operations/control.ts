/**
 * The operations that change the show or the service: one action of the
 * action catalog, and a reload from disk; and `/health`.
 * @module
 */
import { ActionBody, type ActionRequest } from "../action_rules.ts";
import { ActionResultView, HealthView, RefreshView } from "../results.ts";
import { type AnyOperation, defineOperation, given } from "./operation.ts";
import { z } from "zod";
import { type GroupHealth, groupHealthOf, type GroupStatus } from "../../../protocol/rigs.ts";

/** Service status, whether the player is ready; open to anyone, whatever the plan. */
export const healthOperation: AnyOperation = defineOperation({
  name: "health",
  summary: "Service status and whether the player is ready; no authentication",
  tag: "service",
  kind: "service",
  scope: null,
  needsApiAccess: false,
  input: z.strictObject({}),
  output: HealthView,
  run: ({ core, facts: maybe }) => {
    const facts = given(maybe, "service facts");
    const health = core.playerHealth;
    const problems = [...core.model.problems, ...(facts.problems?.() ?? [])];
    return {
      status: !core.isReady ? "starting" : problems.length > 0 ? "degraded" : "ok",
      ready: core.isReady,
      version: facts.version,
      uptimeSeconds: Math.round((performance.now() - facts.startedAt) / 1000),
      player: core.playerInfo?.player ?? null,
      playerRestarts: health.restarts,
      output: health.output,
      problems,
      ...groupPart(facts.group()),
    };
  },
});

/** `/health`'s `group` part: in a rig group only (alone, `/health` is as it always was). */
function groupPart(status: GroupStatus): { group?: GroupHealth } {
  return status.group === null ? {} : { group: groupHealthOf(status) };
}

/** One action of the catalog (`protocol/actions.ts`). */
export const actionOperation: AnyOperation = defineOperation({
  name: "action",
  summary: "Run one action of the catalog (see the Action schema for every name and its params)",
  tag: "actions",
  kind: "action",
  scope: "control",
  isIdempotent: true,
  input: ActionBody,
  // The action rules check and coerce the request themselves, naming each param.
  parse: (raw) => raw as ActionRequest,
  output: ActionResultView,
  // One promise step: this is the hottest path.
  run: ({ core, retry }, input: ActionRequest) =>
    core.runAction(input, retry).then((result) => ({ ok: true, ...result })),
});

/** Reloads every Project, preset and camera from disk. */
export const refreshOperation: AnyOperation = defineOperation({
  name: "refresh",
  since: "6.0",
  summary: "Reload every Project, preset and camera from disk; clients get a full update",
  tag: "service",
  kind: "service",
  scope: "control",
  input: z.strictObject({}),
  output: RefreshView,
  run: async ({ core }) => {
    await core.reload();
    const count = core.queries.projects().length;
    return { ok: true, projects: count, message: `Reloaded ${count} project(s) from disk` };
  },
});
