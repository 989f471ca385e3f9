/**
 * The rig group part of `deno task bench` (docs/rigs.md, One show clock): two rigs of a group on
 * a real etcd of three members, each in a network namespace of its own (the tests' cluster,
 * `tools/testing/etcd_cluster.ts`); `--triggers` restarts of a Clip sent to either rig in turn,
 * each scheduled on both at one show time. Per trigger: how far apart the two rigs' Clip began
 * (each rig's play state's position mapped to its show time, the earliest of four readings), in
 * frames at 30 fps: a rig that ran it late started it where it would be (protocol 1.13 `due`),
 * so this is the rigs' position difference at one show time; and how late each rig ran it after
 * its show time (its timer or its watch). Then, on a second cluster with a Cueport alone beside
 * the rigs (`groupParts`): edit acknowledgement alone and in a group, paired (`--rounds`); the
 * rigs' play-position difference once a second for `--seconds`; failover time, the leader's
 * namespace killed `--failovers` times. Between them, the frames part (`--frames` seconds,
 * `_rigs_frames.ts`): two rigs with headless outputs, each page's frame lag (a bound of how far
 * apart the two outputs are, per report) and, per vsync, how far apart the two outputs' frames
 * are. `--triggers 0 --rounds 0 --seconds 0 --failovers 0` runs the frames part alone. As root
 * with etcd only; otherwise one skipped row.
 * @module
 */
import { parseArgs } from "node:util";
import {
  clusterUnavailable,
  EtcdCluster,
  type Rig,
  RigRelay,
} from "../tools/testing/etcd_cluster.ts";
import { fixtureProject } from "../tools/testing/fixture.ts";
import { writeJsonAtomic } from "../lib/atomic_write.ts";
import type { GroupStatus, RigClock } from "../protocol/rigs.ts";
import { formatRatio, pairedRatio, percentile } from "./_stats.ts";
import { type FrameFigures, measureFrames } from "./_rigs_frames.ts";

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
    const rigs = await bothStarted(cluster, prepare);
    await synced(rigs[0]!);
    await groupReady(rigs);
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

/** The Clip the group parts play: the fixture's looping background Clip, 30 s. */
const LOOPED = "cbg";

/** Two rigs of a group and one Cueport alone, on one cluster, with a relay to each. */
interface Stage {
  cluster: EtcdCluster;
  rigs: Rig[];
  relays: RigRelay[];
  alone: RigRelay;
}

/** Waits until `relay`'s rig says `check` of its group status (polled, bounded). */
async function groupSays(relay: RigRelay, check: (s: GroupStatus) => boolean): Promise<void> {
  for (let i = 0; i < 3000; i++) {
    const answer = await relay.request("/api/v1/group");
    if (answer.status === 200 && check(answer.body as GroupStatus)) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("the group did not get there (60 s)");
}

/**
 * Edit acknowledgement, ms: `rounds` rounds of one `song.add` to the Cueport alone and one to a
 * rig of the group (alternately first), each timed over the same relay; paired per round.
 */
async function measureEditAcks(stage: Stage, rounds: number) {
  const alone: number[] = [];
  const group: number[] = [];
  const edit = async (relay: RigRelay, i: number) => {
    const began = performance.now();
    const answer = await relay.request("/api/v1/edit", {
      projectID: "show",
      name: "song.add",
      params: { title: `bench-${i}` },
    });
    if (answer.status !== 200) throw new Error(`edit refused: ${JSON.stringify(answer.body)}`);
    return performance.now() - began;
  };
  for (let i = 0; i < rounds; i++) {
    const target = stage.relays[i % 2]!;
    if (i % 2 === 0) {
      alone.push(await edit(stage.alone, i));
      group.push(await edit(target, i));
    } else {
      group.push(await edit(target, i));
      alone.push(await edit(stage.alone, i));
    }
  }
  return { alone, group };
}

/**
 * One reading of `relay`'s rig: when its Clip began, on this machine's clock (every rig runs on
 * it: they are namespaces of one machine), from a position read between sending and answering
 * (the midpoint; `rttMs` bounds its error).
 */
async function clipBegan(relay: RigRelay): Promise<{ began: number; rttMs: number } | null> {
  const sent = performance.now();
  const answer = await relay.request("/api/v1/projects/show/playstate");
  const answered = performance.now();
  const clip = (answer.body as { clips?: { clipID: string; position: number }[] }).clips
    ?.find((c) => c.clipID === LOOPED);
  if (answer.status !== 200 || clip === undefined) return null;
  return { began: (sent + answered) / 2 - clip.position * 1000, rttMs: answered - sent };
}

/**
 * The play-position difference between the two rigs, frames at 30 fps, once a second for
 * `seconds`: each second, four readings of each rig, the one read fastest of each (the least
 * error, NTP's minimum-delay filter); its loop's wrap undone. Also the readings' error bound.
 */
async function measurePositions(stage: Stage, seconds: number) {
  const frames: number[] = [];
  const errorMs: number[] = [];
  const loopMs = 30_000;
  for (let s = 0; s < seconds; s++) {
    const second = performance.now();
    const best: Array<{ began: number; rttMs: number }> = [];
    for (const relay of stage.relays) {
      const readings = [];
      for (let i = 0; i < 4; i++) readings.push(await clipBegan(relay));
      const fastest = readings.filter((r) => r !== null).sort((a, b) => a!.rttMs - b!.rttMs)[0];
      if (!fastest) throw new Error(`a rig does not play ${LOOPED}`);
      best.push(fastest);
    }
    const apart = (((best[0]!.began - best[1]!.began) % loopMs) + loopMs) % loopMs;
    frames.push(Math.min(apart, loopMs - apart) / FRAME_MS);
    errorMs.push((best[0]!.rttMs + best[1]!.rttMs) / 2);
    const rest = 1000 - (performance.now() - second);
    if (rest > 0) await new Promise((r) => setTimeout(r, rest));
  }
  return { frames, errorMs };
}

/**
 * Failover, ms: `times` times the leading rig's namespace killed (link down, `kill -9` of every
 * process in it), the time until the other rig's status says it leads (from the kill to the
 * answer that says so; the reading's time bounds its error), then the killed rig started again
 * on its data dir and joined before the next.
 */
async function measureFailovers(stage: Stage, times: number): Promise<number[]> {
  const took: number[] = [];
  for (let n = 0; n < times; n++) {
    await groupSays(stage.relays[0]!, (s) => s.members.length === 2 && s.leader !== null);
    const status = (await stage.relays[0]!.request("/api/v1/group")).body as GroupStatus;
    const dead = stage.rigs.findIndex((r) => r.name === status.leader);
    const survivor = stage.relays[1 - dead]!;
    const killedAt = performance.now();
    await stage.cluster.killRig(stage.rigs[dead]!);
    await groupSays(survivor, (s) => s.isLeader);
    took.push(performance.now() - killedAt);
    const old = stage.rigs[dead]!;
    await stage.relays[dead]!.close();
    await stage.cluster.linkUp(old);
    stage.rigs[dead] = await stage.cluster.startRig(old.name, "bench", {
      host: old,
      dataDir: old.dataDir,
    });
    stage.relays[dead] = new RigRelay(stage.rigs[dead]!);
  }
  return took;
}

/**
 * Starts rig-a and rig-b of group `bench`: both, or throws once neither is still starting (the
 * cluster's `remove()` then finds every process a start left).
 */
async function bothStarted(
  cluster: EtcdCluster,
  prepare: (dir: string) => Promise<void>,
): Promise<Rig[]> {
  const started = await Promise.allSettled([
    cluster.startRig("rig-a", "bench", { prepare }),
    cluster.startRig("rig-b", "bench", { prepare }),
  ]);
  const failed = started.find((s) => s.status === "rejected");
  if (failed) throw failed.reason;
  return started.map((s) => (s as PromiseFulfilledResult<Rig>).value);
}

/**
 * Waits until every rig's group status says edits are possible (`canEdit`: its requests to etcd
 * answered by a quorum, its lease current) and names a leader (polled, bounded): before it, an
 * action runs on that rig alone ("Scheduled on this rig only ... cut off from the quorum").
 */
async function groupReady(rigs: Rig[]): Promise<void> {
  for (const rig of rigs) {
    let last: GroupStatus | null = null;
    for (let i = 0; !(last?.canEdit && last.leader !== null); i++) {
      if (i === 3000) {
        throw new Error(`${rig.name}: the group is not ready (${last?.reason ?? "no status"})`);
      }
      if (i > 0) await new Promise((r) => setTimeout(r, 20));
      last = await rig.get("/api/v1/group") as GroupStatus | null;
    }
  }
}

/**
 * Starts the stage: a cluster, two rigs of group `bench` playing the looped Clip, one alone. A
 * start that fails stops what it started (relays, rigs, namespaces) before it throws.
 */
async function startStage(): Promise<Stage> {
  const cluster = await EtcdCluster.start();
  const relays: RigRelay[] = [];
  try {
    const prepare = (dir: string) =>
      writeJsonAtomic(`${dir}/projects/show/project.json`, fixtureProject());
    const rigs = await bothStarted(cluster, prepare);
    relays.push(...rigs.map((r) => new RigRelay(r)));
    const alone = new RigRelay(await cluster.startRig("solo", "", { prepare, alone: true }));
    relays.push(alone);
    await synced(rigs[0]!);
    await groupReady(rigs);
    const message = await trigger(rigs[0]!, { name: "TRIGGER_CLIP_IN", params: [LOOPED] });
    if (!message?.startsWith("Scheduled on every rig")) throw new Error(`refused: ${message}`);
    return { cluster, rigs, relays: relays.slice(0, 2), alone };
  } catch (error) {
    await Promise.all(relays.map((r) => r.close()));
    await cluster.remove();
    throw error;
  }
}

/** The group parts' rows: edit acknowledgement, play-position difference, failover. */
async function groupParts(o: { rounds: number; seconds: number; failovers: number }) {
  const stage = await startStage();
  try {
    const edits = await measureEditAcks(stage, o.rounds);
    const row = (name: string, xs: number[], digits: number, qs = [0.5, 0.95, 1]) =>
      `| ${name} | ${
        qs.map((q) => xs.length ? percentile(xs, q).toFixed(digits) : "-").join(" | ")
      } |`; // "-": the part did not run (its count 0)
    console.log(`\nEdit acknowledgement, ${o.rounds} rounds, paired\n`);
    console.log("| measure | p50 | p99 | max |\n| --- | --- | --- | --- |");
    console.log(row("a Cueport alone, ms", edits.alone, 1, [0.5, 0.99, 1]));
    console.log(row("a rig of a group, ms", edits.group, 1, [0.5, 0.99, 1]));
    const pairs = edits.alone.map((baseline, i) => ({ baseline, measured: edits.group[i]! }));
    console.log(`\ngroup / alone, paired per round: ${formatRatio(pairedRatio(pairs))}`);
    const positions = await measurePositions(stage, o.seconds);
    console.log(`\nPlay-position difference between the rigs, once a second for ${o.seconds} s\n`);
    console.log("| measure | p50 | p95 | max |\n| --- | --- | --- | --- |");
    console.log(row("difference, frames at 30 fps", positions.frames, 2));
    console.log(row("the readings' error bound, ms", positions.errorMs, 1));
    const failovers = await measureFailovers(stage, o.failovers);
    console.log(`\nFailover, the leader's namespace killed ${o.failovers} times\n`);
    console.log("| measure | p50 | max |\n| --- | --- | --- |");
    console.log(row("until the other rig says it leads, ms", failovers, 0, [0.5, 1]));
  } finally {
    await Promise.all([...stage.relays, stage.alone].map((r) => r.close()));
    await stage.cluster.remove();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      triggers: { type: "string", default: "30" },
      // The frames part: seconds of two rigs' headless outputs (0: not run).
      frames: { type: "string", default: "30" },
      rounds: { type: "string", default: "100" },
      seconds: { type: "string", default: "60" },
      failovers: { type: "string", default: "5" },
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
  const row = (name: string, xs: number[], digits: number) =>
    `| ${name} | ${[0.5, 0.95, 1].map((q) => percentile(xs, q).toFixed(digits)).join(" | ")} |`;
  if (triggers > 0) await triggersPart(triggers, row);
  if (Number(values.frames) > 0) await framesPart(Number(values.frames), row);
  const group = {
    rounds: Number(values.rounds),
    seconds: Number(values.seconds),
    failovers: Number(values.failovers),
  };
  // All three 0: the frames part alone (`--triggers 0 --rounds 0 --seconds 0 --failovers 0`).
  if (group.rounds > 0 || group.seconds > 0 || group.failovers > 0) await groupParts(group);
  console.log(`load average: ${Deno.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
}

/** The triggers part's rows: Clip start difference and lateness. */
async function triggersPart(
  triggers: number,
  row: (name: string, xs: number[], d: number) => string,
) {
  const { frames, late, arrivedLate } = await measure(triggers);
  console.log(row("Clip start difference between the rigs, frames at 30 fps", frames, 3));
  console.log(row("how late a rig ran it after its show time, ms", late, 1));
  console.log(`\narrived after their show time (run at once): ${arrivedLate} of ${late.length}`);
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
  vsyncRows(f, row);
  console.log(`load average: ${Deno.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
}

/**
 * The per-vsync rows: for each frame rig A's page drew, rig B's frame on screen then, the
 * difference of what they show of the Clip both play, in frame indexes (|A - B|).
 */
function vsyncRows(f: FrameFigures, row: (name: string, xs: number[], d: number) => string) {
  const v = f.vsyncs;
  const fps = f.drawn.map((n) => (n / f.seconds).toFixed(1)).join(" and ");
  console.log(
    `\nPer vsync: each of rig A's ${v.onScreen.length} frames against rig B's frame on screen ` +
      `then (the pages drew ${fps} frames a second of ${(1000 / f.frameMs).toFixed(0)})\n`,
  );
  if (v.onScreen.length === 0) {
    console.log("no frame of A within B's recorded frames: nothing paired");
    return;
  }
  const abs = (xs: number[]) => xs.map(Math.abs);
  console.log("| measure | p50 | p95 | max |");
  console.log("| --- | --- | --- | --- |");
  console.log(row("two outputs apart per vsync, frame index difference", abs(v.onScreen), 3));
  console.log(row("B's frame carried to A's instant, apart, frames", abs(v.atInstant), 3));
  // The second row is the clocks' difference plus the Clip's start difference (printed below).
  const share = (100 * v.differentFrames / v.onScreen.length).toFixed(1);
  console.log(
    `\nvsyncs showing frames of different whole indexes: ${v.differentFrames} (${share}%)`,
  );
  console.log(
    `the Clip's start on the two rigs' show times, apart, frames: ${f.startApart.toFixed(3)}`,
  );
  const skew = f.skewMs.map((ms) => ms.toFixed(1)).join(", ");
  console.log(`each page's Date.now() minus its frames' time base, median, ms (A, B): ${skew}`);
}

if (import.meta.main) await main();
