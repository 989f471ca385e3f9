/**
 * The rig group part of `deno task bench` (docs/rigs.md, One show clock): two rigs of a group on
 * a real etcd of three members, each in a network namespace of its own (the tests' cluster,
 * `tests/_helpers/etcd_cluster.ts`); `--triggers` restarts of a Clip sent to either rig in turn,
 * each scheduled on both at one show time. Per trigger: how far apart the two rigs' Clip began
 * (each rig's play state's position mapped to its show time, the earliest of four readings), in
 * frames at 30 fps: a rig that ran it late started it where it would be (protocol 1.13 `due`),
 * so this is the rigs' position difference at one show time; and how late each rig ran it after
 * its show time (its timer or its watch). As root with etcd only; otherwise one
 * skipped row.
 * @module
 */
import { parseArgs } from "node:util";
import { clusterUnavailable, EtcdCluster, type Rig } from "../tests/_helpers/etcd_cluster.ts";
import { fixtureProject } from "../tests/_helpers/fixture.ts";
import { writeJsonAtomic } from "../lib/atomic_write.ts";
import type { GroupStatus, RigClock } from "../protocol/rigs.ts";
import { percentile } from "./_stats.ts";
import { measureFrames } from "./_rigs_frames.ts";

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

/**
 * When `rig`'s c1 began on its show time for action `id`: the earliest of `readings` distinct
 * readings (each a position report of its player, mapped through the service's reading of the
 * player's clock, which an update read late puts late: NTP's minimum-delay filter).
 */
async function clipStart(rig: Rig, id: string, readings = 4): Promise<number> {
  const seen = new Set<number>();
  for (let i = 0; i < 500 && seen.size < readings; i++) {
    const last = (await rig.get("/api/v1/group") as GroupStatus | null)?.clock?.lastAction;
    if (last?.id === id && last.clipStarts.c1 !== undefined) seen.add(last.clipStarts.c1);
    await new Promise((r) => setTimeout(r, 50));
  }
  if (seen.size === 0) throw new Error(`${rig.name}: no reading of c1's start`);
  return Math.min(...seen);
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
      const starts = await Promise.all(rigs.map((r) => clipStart(r, a.id)));
      frames.push(Math.abs(starts[0]! - starts[1]!) / FRAME_MS);
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
    options: {
      triggers: { type: "string", default: "30" },
      // The frames part: seconds of two rigs' headless outputs (0: not run).
      frames: { type: "string", default: "30" },
    },
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
  if (Number(values.frames) > 0) await framesPart(Number(values.frames), row);
  console.log(`load average: ${Deno.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
}

/** The frames part's rows (`_rigs_frames.ts`). */
async function framesPart(seconds: number, row: (name: string, xs: number[], d: number) => string) {
  const f = await measureFrames(seconds);
  console.log(`\nOutputs on the show clock: two headless outputs, ${f.samples} reports each\n`);
  console.log("| measure | p50 | p95 | max |");
  console.log("| --- | --- | --- | --- |");
  console.log(row("a page's frame lag behind its player's clock, frames at 30 fps", f.lag, 3));
  console.log(row("show time the two rigs' frames draw, apart, frames (bound)", f.difference, 3));
  console.log(row("the show clocks' error, ms", f.errorMs, 3));
  console.log(`load average: ${Deno.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
}

if (import.meta.main) await main();
