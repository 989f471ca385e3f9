/**
 * Issue 42: the `wav_bombs` probe's target "refused at once" is CPU time (service and player),
 * which holds on a busy machine, read from `/proc/<pid>/stat`.
 */
import assert from "node:assert/strict";
import { cpuMsOf, statCpuMs } from "../../../tools/reliability/_cpu_time.ts";
import { REFUSAL_CPU_MS, refusalShortfall } from "../../../tools/reliability/wav_bombs.ts";

Deno.test("statCpuMs sums utime and stime of stat lines, names with spaces and brackets included", () => {
  const line = (name: string, utime: number, stime: number) =>
    `42 (${name}) S 1 42 42 0 -1 4194560 100 0 0 0 ${utime} ${stime} 0 0 20 0 1 0 5 0 0`;
  assert.equal(statCpuMs(`${line("deno", 120, 30)}\n${line("a (b) c", 5, 5)}\n`), 1600);
  assert.equal(statCpuMs("42 (deno) S 1"), null);
});

Deno.test("cpuMsOf reads this process's CPU time, and none for a missing pid", async () => {
  const ms = await cpuMsOf([Deno.pid]);
  assert.ok(ms !== null && ms >= 0);
  assert.equal(await cpuMsOf([null]), null);
});

Deno.test("a refusal misses on its CPU time, or when it was not measured", () => {
  assert.equal(refusalShortfall(107), null);
  assert.match(refusalShortfall(REFUSAL_CPU_MS)!, /ms of CPU/);
  assert.match(refusalShortfall(null)!, /not measured/);
});
