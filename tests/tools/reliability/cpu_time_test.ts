/**
 * Issue 42: the CPU time the reliability probes judge by (`shader_hang`'s "draws again within 10
 * s of the machine's CPU"): a process tree's total that never goes back when a process exits, and
 * the machine's idle time.
 */
import assert from "node:assert/strict";
import {
  cpuList,
  DescendantsCpu,
  idleMsOf,
  machineIdleMs,
  statCpuMsByPid,
} from "../../../tools/reliability/_cpu_time.ts";
import { BrowserCpu } from "../../../tools/reliability/shader_hang.ts";

Deno.test("statCpuMsByPid reads each stat line's utime and stime by pid, and leaves out lines it cannot read", () => {
  const line = (pid: number, name: string, utime: number, stime: number) =>
    `${pid} (${name}) S 1 42 42 0 -1 4194560 100 0 0 0 ${utime} ${stime} 0 0 20 0 1 0 5 0 0`;
  const text = `${line(42, "deno", 120, 30)}\n${line(7, "a (b) c", 5, 5)}\n8 (short) S 1\n\n`;
  assert.deepEqual([...statCpuMsByPid(text)], [[42, 1500], [7, 100]]);
});

/**
 * Starts a child of this process that works until it has used some CPU time, then waits; resolves
 * once it has worked, with the function that kills it and waits for its end.
 */
async function workedChild(): Promise<() => Promise<void>> {
  const child = new Deno.Command("sh", {
    args: ["-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; echo worked; read x"],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const reader = child.stdout.getReader();
  await reader.read(); // "worked"
  return async () => {
    child.kill("SIGKILL");
    await child.status;
    reader.releaseLock();
    await child.stdin.close().catch(() => {});
  };
}

Deno.test("DescendantsCpu keeps the CPU time of a child that exited in its total", async () => {
  const meter = new DescendantsCpu(Deno.pid);
  const kill = await workedChild();
  const during = await meter.read();
  assert.ok(during !== null && during > 0, `the child used ${during} ms`);
  await kill();
  assert.ok((await meter.read())! >= during, "the total does not go back when the child exits");
});

Deno.test("idleMsOf sums the idle and iowait of the CPUs this process may run on, not the machine's", () => {
  const stat = "cpu  900 0 90 9000 900 0 0 0 0 0\n" +
    "cpu0 100 0 10 1000 100 0 0 0 0 0\ncpu1 200 0 20 2000 200 0 0 0 0 0\n" +
    "cpu2 300 0 30 3000 300 0 0 0 0 0\nintr 1 2 3\n";
  assert.deepEqual(cpuList("0-1,2"), [0, 1, 2]);
  assert.deepEqual(cpuList("1"), [1]);
  assert.equal(cpuList("2-1"), null);
  // Pinned to CPU 1 (taskset -c 1): its idle only, in ms of 100 ticks a second.
  assert.equal(idleMsOf(stat, [1]), 22_000);
  assert.equal(idleMsOf(stat, [0, 1, 2]), 66_000);
  assert.equal(idleMsOf(stat, [3]), null);
});

Deno.test("BrowserCpu sums each player's processes across a restart: the total never goes back", async () => {
  const cpu = new BrowserCpu();
  assert.equal(await cpu.read(null), null, "nothing read yet");
  const first = await cpu.read(Deno.pid); // this process's children, none yet
  assert.equal(first, null);
  const kill = await workedChild();
  const during = await cpu.read(Deno.pid);
  assert.ok(during !== null && during > 0);
  await kill();
  // The player gone (a restart under way), then a new one with nothing under it yet.
  assert.equal(await cpu.read(null), during);
  const next = new Deno.Command("cat", { stdin: "piped", stdout: "null" }).spawn();
  try {
    assert.equal(await cpu.read(next.pid), during, "a new player with nothing under it adds 0");
  } finally {
    await next.stdin.close();
    await next.status;
  }
});

Deno.test("machineIdleMs reads the cores' idle time from /proc/stat, and it grows", async () => {
  const first = await machineIdleMs();
  assert.ok(first !== null && first > 0);
  const later = await machineIdleMs();
  assert.ok(later! >= first);
});
