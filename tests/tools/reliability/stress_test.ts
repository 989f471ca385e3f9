import assert from "node:assert/strict";
import { busyProcesses, stressArgs } from "../../../tools/reliability/_stress.ts";

Deno.test("stressArgs() asks stress-ng for more busy processes than cores, for a bounded time", () => {
  assert.equal(busyProcesses(2), 6);
  assert.equal(busyProcesses(8), 18);
  assert.deepEqual(stressArgs(busyProcesses(2), 89.5), [
    "--cpu",
    "6",
    "--timeout",
    "90s",
    "--quiet",
  ]);
});
