/**
 * A player's `log` notifications (a player of the user's, `playerCommand`) in the service's log
 * at the level each names, as the bundled player's stderr lines are (`forward_lines_test.ts`);
 * one that is not of the protocol at warn.
 */
import assert from "node:assert/strict";
import { PlayerSupervisor } from "../../../server/player_client/mod.ts";
import { idle, ManualClock, standInLauncher } from "./_stand_in.ts";
import { until } from "../../../tools/testing/until.ts";

Deno.test("a player's log notifications are logged at the level each names", async () => {
  const launcher = standInLauncher();
  const logs: string[] = [];
  const supervisor = new PlayerSupervisor(launcher, {
    clock: new ManualClock(),
    backoff: { initialMs: 1 },
    log: (level, message) => logs.push(`${level} ${message}`),
  });
  supervisor.start();
  try {
    assert.ok(await supervisor.waitReady(120_000));
    const player = launcher.players[0]!;
    for (const level of ["debug", "info", "warn", "error"]) {
      await player.notify("log", { level, message: `a ${level} line` });
    }
    await player.notify("log", { level: "loud", message: "not of the protocol" });
    await idle();
    await until("five log lines", () => logs.filter((l) => l.includes(" player: ")).length === 5);
    assert.deepEqual(logs.filter((l) => l.includes(" player: ")), [
      "debug player: a debug line",
      "info player: a info line",
      "warn player: a warn line",
      "error player: a error line",
      "warn player: (a log notification not of the protocol)",
    ]);
  } finally {
    await supervisor.stop();
  }
});
