/**
 * Issue 42: the CPU time the reliability probes judge by (`shader_hang`'s "draws again within 10
 * s of the machine's CPU"): a process tree's total that never goes back when a process exits, and
 * the machine's idle time.
 */
import assert from "node:assert/strict";
import {
  DescendantsCpu,
  machineIdleMs,
  statCpuMsByPid,
} from "../../../tools/reliability/_cpu_time.ts";

Deno.test("statCpuMsByPid reads each stat line's utime and stime by pid, and leaves out lines it cannot read", () => {
  const line = (pid: number, name: string, utime: number, stime: number) =>
    `${pid} (${name}) S 1 42 42 0 -1 4194560 100 0 0 0 ${utime} ${stime} 0 0 20 0 1 0 5 0 0`;
  const text = `${line(42, "deno", 120, 30)}\n${line(7, "a (b) c", 5, 5)}\n8 (short) S 1\n\n`;
  assert.deepEqual([...statCpuMsByPid(text)], [[42, 1500], [7, 100]]);
});

Deno.test("DescendantsCpu keeps the CPU time of a child that exited in its total", async () => {
  const meter = new DescendantsCpu(Deno.pid);
  // A child that works until it has used some CPU time, then waits to be killed.
  const child = new Deno.Command("sh", {
    args: ["-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; echo worked; read x"],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const reader = child.stdout.getReader();
  await reader.read(); // "worked"
  const during = await meter.read();
  assert.ok(during !== null && during > 0, `the child used ${during} ms`);
  child.kill("SIGKILL");
  await child.status;
  reader.releaseLock();
  await child.stdin.close().catch(() => {});
  assert.ok((await meter.read())! >= during, "the total does not go back when the child exits");
});

Deno.test("machineIdleMs reads the cores' idle time from /proc/stat, and it grows", async () => {
  const first = await machineIdleMs();
  assert.ok(first !== null && first > 0);
  const later = await machineIdleMs();
  assert.ok(later! >= first);
});
