import assert from "node:assert/strict";
import { PlayerSupervisor } from "../../../server/player_client/mod.ts";
import { standInLauncher } from "./_stand_in.ts";

Deno.test("PlayerSupervisor.stop() kills a player that ignores the shutdown request, and says so in killedAtStop", async () => {
  // The stand-in holds every request it is not told to answer: `shutdown` too, and it never exits.
  const launcher = standInLauncher();
  const supervisor = new PlayerSupervisor(launcher, { backoff: { initialMs: 1 } });
  supervisor.start();
  assert.ok(await supervisor.waitReady(120_000));
  assert.equal(supervisor.killedAtStop, false, "not killed before stop");
  await supervisor.stop(0);
  const player = launcher.players[0]!;
  assert.ok(player.held.some((r) => r.method === "shutdown"), "it was asked to shut down");
  assert.ok(player.isClosed, "it was killed");
  assert.equal(supervisor.killedAtStop, true);
});
