import assert from "node:assert/strict";
import { PlayerSupervisor } from "../../../server/player_client/mod.ts";
import { standInLauncher } from "./_stand_in.ts";
import type { RpcMessage } from "../../../protocol/jsonrpc.ts";

Deno.test("PlayerSupervisor.stop() kills a player that ignores the shutdown request, and says so in killedAtStop", async () => {
  // The stand-in holds every request it is not told to answer: `shutdown` too, and it never exits.
  const launcher = standInLauncher();
  // What the service sent, as it sent it: with no grace, the kill may come before the stand-in
  // has read the request (its pipe delivers in a later turn; seen at a load of 50).
  const sent: string[] = [];
  const launch = launcher.launch.bind(launcher);
  launcher.launch = async () => {
    const launched = await launch();
    const { transport } = launched;
    const send = transport.send.bind(transport);
    const sendMany = transport.sendMany.bind(transport);
    const noted = (m: RpcMessage) => sent.push((m as { method?: string }).method ?? "");
    transport.send = (m) => (noted(m), send(m));
    transport.sendMany = (ms) => (ms.forEach(noted), sendMany(ms));
    return launched;
  };
  const supervisor = new PlayerSupervisor(launcher, { backoff: { initialMs: 1 } });
  supervisor.start();
  assert.ok(await supervisor.waitReady(120_000));
  assert.equal(supervisor.killedAtStop, false, "not killed before stop");
  await supervisor.stop(0);
  const player = launcher.players[0]!;
  assert.ok(sent.includes("shutdown"), "it was asked to shut down");
  assert.ok(player.isClosed, "it was killed");
  assert.equal(supervisor.killedAtStop, true);
});
