/**
 * A follower revokes the lease of a leader silent for a whole lease (server/rigs/leader_watch.ts),
 * against one real etcd member on the loopback: on a virtual clock, silence triggers the revoke;
 * a heartbeat the read finds cancels it; a follower whose view stalled while its clock jumped does
 * not revoke a live leader. Wired in `RigGroup`: a leader frozen (its calls held) is revoked by
 * the other rig, which then leads; thawed, its fenced write is refused and it says it no longer
 * leads.
 */
import assert from "node:assert/strict";
import { startLoopbackEtcd } from "../../../tools/testing/etcd_cluster.ts";
import { LOOPBACK_ETCD_TEST } from "../../../tools/testing/loopback_rigs.ts";
import { until } from "../../../tools/testing/until.ts";
import type { Etcd } from "../../../server/rigs/etcd.ts";
import { GatewayEtcd } from "../../../server/rigs/etcd_gateway.ts";
import { fenced } from "../../../server/rigs/election.ts";
import { RigGroup } from "../../../server/rigs/group.ts";
import { type LeaderBeat, LeaderWatch } from "../../../server/rigs/leader_watch.ts";

const opts = LOOPBACK_ETCD_TEST;
const RECORD = "/cueport/show/rigs/main";
const CAMPAIGN = "/cueport/show/election/main";

/** A leader's record and campaign key under a lease of its own (long: etcd never ends it here). */
async function leaderKeys(etcd: Etcd): Promise<LeaderBeat> {
  const lease = await etcd.grant(60);
  const modRevision = await etcd.put(RECORD, "{}", lease);
  await etcd.put(CAMPAIGN, lease, lease);
  return { rig: "main", lease, recordKey: RECORD, campaignKey: CAMPAIGN, modRevision, seenAt: 0 };
}

/** A watch of the leader `beat()` on the virtual clock `clock.now`; its log lines in `lines`. */
function watchOf(etcd: Etcd, beat: () => LeaderBeat | null, clock: { now: number }) {
  const lines: string[] = [];
  const watch = new LeaderWatch({
    etcd,
    group: "show",
    leaseMs: 1000,
    beat,
    log: (_, line) => lines.push(line),
    now: () => clock.now,
  });
  return { watch, lines };
}

Deno.test({
  ...opts,
  name: "LeaderWatch.check(): a leader silent for a whole lease has its lease revoked",
  fn: async () => {
    const solo = await startLoopbackEtcd();
    try {
      const etcd = new GatewayEtcd([solo.url]);
      const beat = await leaderKeys(etcd);
      const clock = { now: 999 };
      const { watch, lines } = watchOf(etcd, () => beat, clock);
      assert.equal(await watch.check(), "beating");
      assert.equal(watch.dueIn(), 1);
      clock.now = 1000;
      assert.equal(await watch.check(), "revoked");
      assert.deepEqual((await etcd.range("/cueport/show/", { prefix: true })).kvs, []);
      assert.equal(lines.length, 1);
      assert.match(lines[0]!, new RegExp(`revoked the lease ${beat.lease} of the leader main`));
      assert.match(lines[0]!, /silent for 1000 ms/);
      // The view still shows it until the watch delivers the deletes: not revoked twice meanwhile.
      assert.equal(watch.dueIn(), 1000);
    } finally {
      await solo.stop();
    }
  },
});

Deno.test({
  ...opts,
  name: "LeaderWatch.check(): a heartbeat the read finds cancels the revoke until a lease after it",
  fn: async () => {
    const solo = await startLoopbackEtcd();
    try {
      const etcd = new GatewayEtcd([solo.url]);
      const beat = await leaderKeys(etcd);
      await etcd.put(RECORD, '{"later":true}', beat.lease); // a beat the view has not seen
      const clock = { now: 1500 };
      const { watch, lines } = watchOf(etcd, () => beat, clock);
      assert.equal(await watch.check(), "moved");
      assert.equal((await etcd.range(CAMPAIGN)).kvs[0]?.lease, beat.lease);
      assert.equal(watch.dueIn(), 1000, "the beat found counts as heard at the read");
      clock.now = 2499;
      assert.equal(await watch.check(), "beating");
      clock.now = 2500; // silent for a lease since the beat found: revoked now
      assert.equal(await watch.check(), "revoked");
      assert.match(lines[0]!, /silent for 1000 ms/);
      assert.deepEqual((await etcd.range(CAMPAIGN)).kvs, []);
    } finally {
      await solo.stop();
    }
  },
});

/** A rig of group `show` on `url` with a lease of 1 s, its log lines kept. */
function rig(etcd: Etcd, name: string, url: string) {
  const lines: string[] = [];
  const group = new RigGroup({
    etcd,
    group: "show",
    rig: name,
    leaseSeconds: 1,
    describe: () => ({ addresses: [], ports: {}, version: "0" }),
    endpoints: [url],
    log: (_, line) => lines.push(line),
  });
  return { group, lines };
}

Deno.test({
  ...opts,
  name:
    "LeaderWatch.check(): a follower whose view stalled while its clock jumped 5 s does not revoke a live leader",
  fn: async () => {
    const solo = await startLoopbackEtcd();
    const etcd = new GatewayEtcd([solo.url]);
    const main = rig(etcd, "main", solo.url);
    try {
      main.group.start();
      await until("main leads", () => main.group.status().isLeader);
      // The view as it stood before the stall: it sees nothing more (its watch stalled too).
      const stale = await leaderKeysOf(etcd);
      await until(
        "main beats again",
        async () => (await leaderKeysOf(etcd)).modRevision > stale.modRevision,
      );
      const clock = { now: 5000 };
      const { watch, lines } = watchOf(etcd, () => stale, clock);
      assert.equal(await watch.check(), "moved");
      assert.deepEqual(lines, []);
      assert.equal((await etcd.range(CAMPAIGN)).kvs[0]?.lease, stale.lease);
      assert.equal(main.group.status().isLeader, true);
    } finally {
      await main.group.stop();
      await solo.stop();
    }
  },
});

/** The leader main's keys as etcd has them now. */
async function leaderKeysOf(etcd: Etcd): Promise<LeaderBeat> {
  const [record] = (await etcd.range(RECORD)).kvs;
  return {
    rig: "main",
    lease: record!.lease,
    recordKey: RECORD,
    campaignKey: CAMPAIGN,
    modRevision: record!.modRevision,
    seenAt: 0,
  };
}

/** `etcd`, each call held while `frozen` (a rig whose process stopped), released by `thaw()`. */
function freezable(etcd: GatewayEtcd) {
  let thawed: Promise<void> = Promise.resolve();
  let thaw = () => {};
  const held = <T>(call: () => Promise<T>) => thawed.then(call);
  const wrapped: Etcd = {
    get endpoint() {
      return etcd.endpoint;
    },
    range: (key, options) => held(() => etcd.range(key, options)),
    put: (key, value, lease) => held(() => etcd.put(key, value, lease)),
    txn: (txn) => held(() => etcd.txn(txn)),
    grant: (ttl) => held(() => etcd.grant(ttl)),
    keepAlive: (lease) => held(() => etcd.keepAlive(lease)),
    revoke: (lease) => held(() => etcd.revoke(lease)),
    watch: (prefix, options) => etcd.watch(prefix, options),
  };
  return {
    etcd: wrapped,
    freeze: () => thawed = new Promise((resolve) => thaw = resolve),
    thaw: () => thaw(),
  };
}

Deno.test({
  ...opts,
  name:
    "RigGroup: a leader frozen for a lease is revoked by the other rig; thawed, its fenced write is refused and it no longer leads",
  fn: async () => {
    const solo = await startLoopbackEtcd();
    const frozen = freezable(new GatewayEtcd([solo.url]));
    const main = rig(frozen.etcd, "main", solo.url);
    const backup = rig(new GatewayEtcd([solo.url]), "backup", solo.url);
    try {
      main.group.start();
      await until("main leads", () => main.group.status().isLeader);
      backup.group.start();
      await until("backup follows main", () => backup.group.status().leader === "main");
      const campaign = main.group.campaign!;
      frozen.freeze();
      // etcd's own lessor cannot end main's lease this soon: on this member it lasts 2 s.
      await until("backup leads", () => backup.group.status().isLeader);
      const revoke = backup.lines.find((l) => l.includes("revoked the lease"));
      assert.match(revoke ?? "", /of the leader main, silent for \d+ ms/);
      frozen.thaw();
      const put = { put: { key: "/cueport/show/fenced", value: "main" } };
      const answer = await frozen.etcd.txn(
        fenced({ compare: [], success: [put], failure: [] }, campaign),
      );
      assert.equal(answer.succeeded, false, "the revoked leader's write is refused");
      assert.deepEqual((await frozen.etcd.range("/cueport/show/fenced")).kvs, []);
      await until("main says backup leads", () => {
        const status = main.group.status();
        return status.leader === "backup" && !status.isLeader;
      });
      assert.ok(main.lines.some((l) => /lease (expired|not found); joining again/.test(l)));
    } finally {
      frozen.thaw();
      await main.group.stop();
      await backup.group.stop();
      await solo.stop();
    }
  },
});
