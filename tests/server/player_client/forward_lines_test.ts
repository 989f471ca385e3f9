/**
 * The player's stderr lines in the service's log (`forwardPlayerLines`): each at the level its
 * `[player] <level>:` prefix names, so `--log-level warn` keeps the player's warnings and errors
 * (the output that cannot keep up, a recording that failed); free text at info; the damaged-file
 * lines left to the service, which logs them itself from the ready snapshot.
 */
import assert from "node:assert/strict";
import { forwardPlayerLines } from "../../../server/player_client/spawn.ts";

Deno.test("the player's stderr lines are logged at the level each names", () => {
  const logged: Array<[string, string]> = [];
  const forward = forwardPlayerLines((level, message) => logged.push([level, message]));
  const lines = [
    "[player] warn: Output: the page drew 7 frames in the last second",
    "[player] error: Recording failed: the disk is full",
    "[player] info: Output: headless in /usr/bin/chromium",
    "[player] debug: a detail",
    "error: Uncaught (in promise) Error: boom",
    "free text, not of the player's logger",
    "[player] warn: Damaged file projects/x/project.json: not JSON",
  ];
  for (const line of lines) forward(line);
  assert.deepEqual(logged, [
    ["warn", `player: ${lines[0]}`],
    ["error", `player: ${lines[1]}`],
    ["info", `player: ${lines[2]}`],
    ["debug", `player: ${lines[3]}`],
    ["error", `player: ${lines[4]}`],
    ["info", `player: ${lines[5]}`],
  ]);
});
