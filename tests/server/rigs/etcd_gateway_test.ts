/**
 * `GatewayEtcd` (server/rigs/etcd_gateway.ts) and the election
 * (server/rigs/election.ts) against one real etcd member on the loopback:
 * keys, txns, leases, a watch, moving past a member that refuses, and
 * `fenced` refusing a deposed leader's txn.
 */
import assert from "node:assert/strict";
import { startLoopbackEtcd } from "../../../tools/testing/etcd_cluster.ts";
import { LOOPBACK_ETCD_TEST } from "../../../tools/testing/loopback_rigs.ts";
import { campaign, fenced, leaderKey } from "../../../server/rigs/election.ts";
import { GatewayEtcd } from "../../../server/rigs/etcd_gateway.ts";
import { EtcdUnavailable, type WatchEvent } from "../../../server/rigs/etcd.ts";
import { until } from "../../../tools/testing/until.ts";

const opts = LOOPBACK_ETCD_TEST;

/** A loopback port nothing listens on (refused at once). */
function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

Deno.test({
  ...opts,
  name: "GatewayEtcd: put, range by prefix, txn and watch, past a member that refuses",
  fn: async () => {
    const solo = await startLoopbackEtcd();
    const dead = `http://127.0.0.1:${closedPort()}`;
    const etcd = new GatewayEtcd([dead, solo.url], { timeoutMs: 2000 });
    const stop = new AbortController();
    try {
      const events: WatchEvent[] = [];
      const start = (await etcd.range("/t/")).revision; // moved past the dead member
      assert.equal(etcd.endpoint, solo.url);
      const watching = etcd.watch("/t/", {
        fromRevision: start + 1,
        onEvents: (batch) => events.push(...batch),
        onCompacted: () => {},
        signal: stop.signal,
      });
      const first = await etcd.put("/t/a", "\u00e91");
      await etcd.put("/t/b", "2");
      await etcd.put("/u/c", "3");
      const { kvs, revision } = await etcd.range("/t/", { prefix: true });
      assert.deepEqual(kvs.map((kv) => [kv.key, kv.value]), [["/t/a", "\u00e91"], ["/t/b", "2"]]);
      assert.ok(revision > first);
      const txn = await etcd.txn({
        compare: [{ key: "/t/a", target: "VALUE", result: "EQUAL", value: "\u00e91" }],
        success: [{ delete: { key: "/t/b" } }, { range: { key: "/t/", prefix: true } }],
        failure: [],
      });
      assert.equal(txn.succeeded, true);
      assert.deepEqual(txn.ranges[0]!.map((kv) => kv.key), ["/t/a"]);
      // Every change from the revision asked, in order, even those made before the stream took.
      await until("the watch's events", () => events.length >= 3);
      assert.deepEqual(events.map((e) => `${e.type} ${e.kv.key}`), [
        "put /t/a",
        "put /t/b",
        "delete /t/b",
      ]);
      stop.abort();
      await watching;
    } finally {
      stop.abort();
      await solo.stop();
    }
  },
});

Deno.test({
  ...opts,
  name: "GatewayEtcd: no member answering rejects with EtcdUnavailable",
  fn: async () => {
    const etcd = new GatewayEtcd([`http://127.0.0.1:${closedPort()}`], { timeoutMs: 500 });
    await assert.rejects(etcd.put("/x", "1"), EtcdUnavailable);
  },
});

Deno.test({
  ...opts,
  name: "campaign() and fenced(): the oldest campaign leads; a deposed leader's txn is refused",
  fn: async () => {
    const solo = await startLoopbackEtcd();
    const etcd = new GatewayEtcd([solo.url]);
    try {
      const [leaseA, leaseB] = [await etcd.grant(10), await etcd.grant(10)];
      const a = await campaign(etcd, "/g/election/a", leaseA);
      const b = await campaign(etcd, "/g/election/b", leaseB);
      assert.deepEqual(await campaign(etcd, "/g/election/a", leaseA), a, "a campaign resumed");
      const { kvs } = await etcd.range("/g/election/", { prefix: true });
      assert.equal(leaderKey(kvs)?.key, "/g/election/a");
      const write = (value: string) => ({
        compare: [],
        success: [{ put: { key: "/g/edits/1", value } }],
        failure: [],
      });
      assert.equal((await etcd.txn(fenced(write("by a"), a))).succeeded, true);
      // a's lease gone (a rig cut off too long): b leads, and a's fenced txn applies nothing.
      await etcd.revoke(leaseA);
      assert.equal(await etcd.keepAlive(leaseA), 0);
      const refused = await etcd.txn(fenced(write("by a, deposed"), a));
      assert.equal(refused.succeeded, false);
      assert.deepEqual(refused.ranges, [[]], "the fence's key is gone");
      assert.equal((await etcd.txn(fenced(write("by b"), b))).succeeded, true);
      const [edit] = (await etcd.range("/g/edits/1")).kvs;
      assert.equal(edit?.value, "by b");
    } finally {
      await solo.stop();
    }
  },
});
