/**
 * One show clock in a rig group (docs/rigs.md), with real etcd (three members) and two rigs, each
 * in a network namespace of its own: the follower's show clock follows the leader's, and both
 * rigs' offsets are in `GET /api/v1/group`; a trigger sent to one rig starts the Clip on both at
 * one show time (each rig's Clip position, from its play state, at one show time, within one
 * frame at 30 fps, however late either rig's timer fired); the leader killed, the other's show clock goes on without a step. As root
 * with etcd only; otherwise skipped with one line.
 */
import assert from "node:assert/strict";
import { clusterUnavailable, EtcdCluster, type Rig } from "../../../tools/testing/etcd_cluster.ts";
import { fixtureProject } from "../../../tools/testing/fixture.ts";
import { needs } from "../../../tools/testing/peers.ts";
import { untilProgress } from "../../../tools/testing/until.ts";
import type { GroupStatus } from "../../../protocol/rigs.ts";
import { writeJsonAtomic } from "../../../lib/atomic_write.ts";

const unavailable = await clusterUnavailable();
if (unavailable !== null) console.error(`rigs show_clock_test skipped: ${unavailable}`);

const FRAME_MS = 1000 / 30;

/** Waits until `check` holds for `rig`'s status, for as long as the rig keeps answering. */
async function waitFor(rig: Rig, what: string, check: (s: GroupStatus) => boolean) {
  let polls = 0;
  let last: GroupStatus | null = null;
  await untilProgress(`${rig.name}: ${what}`, async () => {
    polls++;
    last = await rig.get("/api/v1/group") as GroupStatus | null;
    return last !== null && check(last);
  }, { progress: () => polls, noProgressMs: 30_000 }).catch((error) => {
    throw new Error(`${error.message}; last status ${JSON.stringify(last)}; ${rig.stderr()}`);
  });
  return last! as GroupStatus;
}

/** POSTs `body` to the rig's `path` from inside its namespace; the answer, or null. */
async function post(
  rig: Rig,
  path: string,
  body: unknown,
): Promise<Record<string, unknown> | null> {
  const out = await new Deno.Command("ip", {
    args: [
      ...["netns", "exec", rig.ns, "curl", "-s", "--max-time", "5", "-X", "POST"],
      ...["-H", "content-type: application/json", "-d", JSON.stringify(body)],
      `http://127.0.0.1:${rig.httpPort}${path}`,
    ],
    stdout: "piped",
    stderr: "null",
  }).output();
  try {
    return JSON.parse(new TextDecoder().decode(out.stdout));
  } catch {
    return null;
  }
}

/**
 * When `rig`'s Clip `id` began, on its show time, as its status tells over `readings` position
 * reports of its player: the earliest. Each reading maps the player's position through the
 * service's reading of the player's clock, which an update read late (a loaded machine) puts
 * late; the earliest of several is the one read least late (NTP's minimum-delay filter).
 */
async function clipStart(rig: Rig, actionId: string, id: string, readings = 4): Promise<number> {
  const seen = new Set<number>();
  await untilProgress(`${rig.name}: ${readings} readings of ${id}'s start`, async () => {
    const s = await rig.get("/api/v1/group") as GroupStatus | null;
    const last = s?.clock?.lastAction;
    if (last?.id === actionId && last.clipStarts[id] !== undefined) seen.add(last.clipStarts[id]);
    return seen.size >= readings;
  }, { progress: () => seen.size, noProgressMs: 30_000 });
  return Math.min(...seen);
}

const prepare = (dir: string) =>
  writeJsonAtomic(`${dir}/projects/show/project.json`, fixtureProject());

Deno.test({
  name: "rig group: one show clock, a trigger on one rig starts the Clip on both within a frame",
  ignore: unavailable !== null && (!unavailable.includes("installed") || needs("etcd").ignore),
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const cluster = await EtcdCluster.start();
    try {
      const [a, b] = await Promise.all([
        cluster.startRig("rig-a", "show", { prepare }),
        cluster.startRig("rig-b", "show", { prepare }),
      ]);
      // Both rigs' clocks are synced: one leads, the other follows it with a measured error.
      const synced = (s: GroupStatus) =>
        s.members.length === 2 && s.leader !== null &&
        s.members.every((m) => m.clock && m.clock.role !== "unsynced" && m.clock.errorMs !== null);
      const sa = await waitFor(a!, "both clocks synced", synced);
      const leaderName = sa.leader!;
      const [leader, follower] = leaderName === "rig-a" ? [a!, b!] : [b!, a!];
      const fs = await waitFor(follower, "following", (s) => s.clock?.role === "follower");
      assert.equal(sa.members.find((m) => m.name === leaderName)!.clock!.role, "leader");
      console.log(
        `rigs clock: ${follower.name} offset ${fs.clock!.offsetMs} ms, error ${
          fs.clock!.errorMs
        } ms`,
      );
      const health = await a!.get("/health") as { group?: { clock?: unknown } };
      assert.ok(health.group?.clock, "the clock is in /health's group part");

      // A trigger on rig A: scheduled on both, the Clip starts on both at one show time.
      let answer: Record<string, unknown> | null = null;
      await untilProgress("the trigger taken", async () => {
        answer = await post(a!, "/api/v1/action", { name: "TRIGGER_CLIP_IN", params: ["c1"] });
        return typeof answer?.message === "string" && /Scheduled on every rig/.test(answer.message);
      }, { progress: () => 0, noProgressMs: 30_000 }).catch((error) => {
        throw new Error(`${error.message}: ${JSON.stringify(answer)}`);
      });
      const started = (s: GroupStatus) => s.clock?.lastAction?.clipStarts.c1 !== undefined;
      const [ra, rb] = [await waitFor(a!, "c1 started", started), await waitFor(b!, "c1", started)];
      const [la, lb] = [ra.clock!.lastAction!, rb.clock!.lastAction!];
      assert.equal(la.id, lb.id, "the same action on both rigs");
      // Each rig's c1 position (as its player reports it, speed 1) at one show time: a rig whose
      // timer fired late started it where it would be (protocol 1.14 `due`), so they agree.
      const at = la.showTime + 1000;
      const [startA, startB] = await Promise.all([
        clipStart(a!, la.id, "c1"),
        clipStart(b!, la.id, "c1"),
      ]);
      const [pa, pb] = [at - startA, at - startB];
      const apart = Math.abs(pa - pb);
      console.log(
        `rigs clock: c1 at show time +1 s: ${pa.toFixed(2)} / ${pb.toFixed(2)} ms, ${
          apart.toFixed(2)
        } ms apart (run late by ${la.lateMs} / ${lb.lateMs} ms)`,
      );
      assert.ok(apart < FRAME_MS, `c1 ${apart} ms apart at one show time: more than a frame`);

      // The leader killed: the follower leads, its show clock goes on without a step.
      const before = await waitFor(follower, "its clock", (s) => s.clock !== null);
      await cluster.killRig(leader);
      const after = await waitFor(
        follower,
        "leads",
        (s) => s.isLeader && s.clock?.role === "leader",
      );
      const moved = Math.abs(after.clock!.offsetMs - before.clock!.offsetMs);
      console.log(`rigs clock: the leader killed; show time moved ${moved.toFixed(3)} ms`);
      assert.ok(moved < 5, `show time moved ${moved} ms at the failover`);
    } finally {
      const left = await cluster.remove();
      assert.deepEqual(left, [], "every namespace removed");
    }
  },
});
