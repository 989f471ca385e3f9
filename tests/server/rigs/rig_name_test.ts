/**
 * A rig's name is its own in its group (server/rigs/group.ts, election.ts),
 * against one real etcd member on the loopback: a rig never adopts a record
 * or campaign key of another lease. A rig restarted while its old lease still
 * runs waits for it to run out, then campaigns and leads; a second live rig
 * of the same name (a cloned machine) is refused as GROUP_RIG_NAME_IN_USE
 * while the first leads alone, and joins once the first has left.
 */
import assert from "node:assert/strict";
import { startLoopbackEtcd } from "../../../tools/testing/etcd_cluster.ts";
import { LOOPBACK_ETCD_TEST } from "../../../tools/testing/loopback_rigs.ts";
import { GatewayEtcd } from "../../../server/rigs/etcd_gateway.ts";
import { RigGroup } from "../../../server/rigs/group.ts";
import { until } from "../../../tools/testing/until.ts";

const opts = LOOPBACK_ETCD_TEST;

function rig(url: string, name: string): RigGroup {
  return new RigGroup({
    etcd: new GatewayEtcd([url]),
    group: "show",
    rig: name,
    leaseSeconds: 1,
    describe: () => ({ addresses: [], ports: {}, version: "0" }),
    endpoints: [url],
    log: () => {},
  });
}

Deno.test({
  ...opts,
  name: "RigGroup: a rig restarted within its old lease campaigns once the old keys expire",
  fn: async () => {
    const solo = await startLoopbackEtcd();
    const etcd = new GatewayEtcd([solo.url]);
    const main = rig(solo.url, "main");
    try {
      // The rig's last life: its record and campaign under a lease nobody renews any more.
      const old = await etcd.grant(4);
      await etcd.put("/cueport/show/rigs/main", "{}", old);
      await etcd.put("/cueport/show/election/main", old, old);
      main.start();
      await until("the first beat", () => main.status().reasonCode !== "GROUP_JOINING");
      const waiting = main.status();
      assert.equal(waiting.reasonCode, "GROUP_RIG_NAME_IN_USE", waiting.reason ?? "");
      assert.equal(waiting.isLeader, false);
      await until("main leads once the old lease ran out", () => main.status().isLeader, 30_000);
      const [campaign] = (await etcd.range("/cueport/show/election/main")).kvs;
      assert.notEqual(campaign?.lease, old);
      assert.equal(main.campaign?.createRevision, campaign?.createRevision);
    } finally {
      await main.stop();
      await solo.stop();
    }
  },
});

Deno.test({
  ...opts,
  name:
    "RigGroup: a second live rig of the same name is refused (GROUP_RIG_NAME_IN_USE), not a second leader",
  fn: async () => {
    const solo = await startLoopbackEtcd();
    const [first, clone] = [rig(solo.url, "main"), rig(solo.url, "main")];
    try {
      first.start();
      await until("the first leads", () => first.status().isLeader);
      clone.start();
      await until("the clone refused", () => clone.status().reasonCode !== "GROUP_JOINING");
      const refused = clone.status();
      assert.equal(refused.reasonCode, "GROUP_RIG_NAME_IN_USE");
      assert.match(refused.reason ?? "", /rig name main is in use/);
      assert.equal(refused.isLeader, false);
      assert.equal(refused.canEdit, false);
      assert.equal(clone.campaign, null);
      assert.equal(first.status().isLeader, true);
      await first.stop(); // its lease revoked: the name is free
      await until("the clone leads", () => clone.status().isLeader);
    } finally {
      await first.stop();
      await clone.stop();
      await solo.stop();
    }
  },
});
