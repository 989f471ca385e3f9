/**
 * `ActionRunner.send` with `due` (a rig group's action, protocol 1.14): the player is sent `due`
 * only when it speaks 1.14 and runs on the machine's clock; an older player, or one on a virtual
 * clock (tests), gets the action as before.
 */
import assert from "node:assert/strict";
import { ActionRunner } from "../../../server/core/action_runner.ts";
import type { PlayerLink } from "../../../server/core/player_link.ts";
import type { IdempotencyStore } from "../../../server/core/idempotency.ts";
import type { NormalizedAction } from "../../../protocol/actions.ts";

const TRIGGER: NormalizedAction = {
  name: "TRIGGER_CLIP_IN",
  params: { clipID: "c1" },
  projectId: null,
};

/** A runner whose player speaks `version` on a virtual clock or not; what it was sent. */
function runnerOf(version: string, virtualClock: boolean) {
  const sent: unknown[] = [];
  const link = {
    model: { activeProjectId: "show" },
    requireReady: () => {},
    player: {
      info: { protocolVersion: version, capabilities: { virtualClock } },
      request: (_method: string, params: unknown) => {
        sent.push(params);
        return Promise.resolve({ applied: true, message: "ok" });
      },
    },
  } as unknown as PlayerLink;
  return { runner: new ActionRunner(link, {} as IdempotencyStore), sent };
}

Deno.test("ActionRunner.send() passes due to a 1.14 player on a real clock only", async () => {
  const real = runnerOf("1.14", false);
  await real.runner.send(TRIGGER, "k", 1_764_000_000_123);
  await real.runner.send(TRIGGER);
  assert.deepEqual(real.sent, [
    { ...TRIGGER, idempotencyKey: "k", due: 1_764_000_000_123 },
    TRIGGER,
  ]);
  for (const [version, virtual] of [["1.13", false], ["1.14", true]] as const) {
    const other = runnerOf(version, virtual);
    await other.runner.send(TRIGGER, undefined, 1_764_000_000_123);
    assert.deepEqual(other.sent, [TRIGGER], `${version}, virtual clock ${virtual}: no due`);
  }
});
