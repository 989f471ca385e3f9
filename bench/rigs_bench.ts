/**
 * The rig group part of `deno task bench` (docs/rigs.md, One show clock): two rigs of a group on
 * a real etcd of three members, each in a network namespace of its own (the tests' cluster,
 * `tests/_helpers/etcd_cluster.ts`); `--triggers` restarts of a Clip sent to either rig in turn,
 * each scheduled on both at one show time. Per trigger: how far apart the two rigs' Clip began
 * (each rig's play state's position mapped to its show time), in frames at 30 fps, and how late
 * each rig's watch delivered it (0: before its show time). As root with etcd only; otherwise one
 * skipped row.
 * @module
 */
import { parseArgs } from "node:util";
import { clusterUnavailable, EtcdCluster, type Rig } from "../tests/_helpers/etcd_cluster.ts";
import { fixtureProject } from "../tests/_helpers/fixture.ts";
import { writeJsonAtomic } from "../lib/atomic_write.ts";
import type { GroupStatus, RigClock } from "../protocol/rigs.ts";
import { percentile } from "./_stats.ts";

const FRAME_MS = 1000 / 30;
type Last = NonNullable<RigClock["lastAction"]>;

/** POSTs an action to `rig` from inside its namespace; its answer's message, or null. */
async function trigger(rig: Rig, body: unknown): Promise<string | null> {
  const out = await new Deno.Command("ip", {
    args: [
      ...["netns", "exec", rig.ns, "curl", "-s", "--max-time", "5", "-X", "POST"],
      ...["-H", "content-type: application/json", "-d", JSON.stringify(body)],
      `http://127.0.0.1:${rig.httpPort}/api/v1/action`,
    ],
    stdout: "piped",
    stderr: "null",
  }).output();
  try {
    return JSON.parse(new TextDecoder().decode(out.stdout)).message ?? null;
  } catch {
    return null;
  }
}

/** The rig's last group action once it is not `previous` and has started c1 (polled, bounded). */
async function lastAction(rig: Rig, previous: string | null): Promise<Last> {
  for (let i = 0; i < 500; i++) {
    const s = await rig.get("/api/v1/group") as GroupStatus | null;
    const last = s?.clock?.lastAction;
    if (last && last.id !== previous && last.clipStarts.c1 !== undefined) return last;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${rig.name} did not run the action: ${rig.stderr().slice(-2000)}`);
}

/** Waits until both rigs' clocks are synced (one leads, the other follows with an error). */
async function synced(rig: Rig): Promise<GroupStatus> {
  for (let i = 0; i < 3000; i++) {
    const s = await rig.get("/api/v1/group") as GroupStatus | null;
    const ok = s !== null && s.members.length === 2 &&
      s.members.every((m) => m.clock && m.clock.role !== "unsynced" && m.clock.errorMs !== null);
    if (ok) return s;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${rig.name}: the clocks did not sync: ${rig.stderr().slice(-2000)}`);
}

/** The differences (frames) and lateness (ms) of `triggers` scheduled triggers. */
async function measure(
  triggers: number,
): Promise<{ frames: number[]; late: number[]; arrivedLate: number }> {
  const cluster = await EtcdCluster.start();
  const prepare = (dir: string) =>
    writeJsonAtomic(`${dir}/projects/show/project.json`, fixtureProject());
  try {
    const rigs = await Promise.all([
      cluster.startRig("rig-a", "bench", { prepare }),
      cluster.startRig("rig-b", "bench", { prepare }),
    ]);
    await synced(rigs[0]!);
    const frames: number[] = [];
    const late: number[] = [];
    let previous: string | null = null;
    for (let i = 0; i < triggers; i++) {
      const message = await trigger(rigs[i % 2]!, { name: "RESTART_CLIP_IN", params: ["c1"] });
      if (!message?.startsWith("Scheduled on every rig")) throw new Error(`refused: ${message}`);
      const a: Last = await lastAction(rigs[0]!, previous);
      const b: Last = await lastAction(rigs[1]!, previous);
      if (a.id !== b.id) throw new Error(`the rigs ran different actions: ${a.id}, ${b.id}`);
      previous = a.id;
      frames.push(Math.abs(a.clipStarts.c1! - b.clipStarts.c1!) / FRAME_MS);
      late.push(a.lateMs, b.lateMs);
    }
    const clocks = await Promise.all(rigs.map((r) => r.get("/api/v1/group"))) as GroupStatus[];
    return { frames, late, arrivedLate: clocks.reduce((n, s) => n + (s.clock?.late ?? 0), 0) };
  } finally {
    await cluster.remove();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: { triggers: { type: "string", default: "30" } },
  });
  const triggers = Number(values.triggers);
  console.log(
    `\nCueport rig group benchmark (two rigs, three etcd members, ${triggers} triggers)\n`,
  );
  console.log("| measure | p50 | p95 | max |");
  console.log("| --- | --- | --- | --- |");
  const unavailable = await clusterUnavailable();
  if (unavailable !== null) {
    console.log(`| play-position difference | skipped: ${unavailable} | | |`);
    return;
  }
  const { frames, late, arrivedLate } = await measure(triggers);
  const row = (name: string, xs: number[], digits: number) =>
    `| ${name} | ${[0.5, 0.95, 1].map((q) => percentile(xs, q).toFixed(digits)).join(" | ")} |`;
  console.log(row("Clip start difference between the rigs, frames at 30 fps", frames, 3));
  console.log(row("how late a rig ran it after its show time, ms", late, 1));
  console.log(`\narrived after their show time (run at once): ${arrivedLate} of ${late.length}`);
  console.log(`load average: ${Deno.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
}

if (import.meta.main) await main();
