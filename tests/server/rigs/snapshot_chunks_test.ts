/**
 * The group snapshot's chunks (server/rigs/snapshot.ts) against one real etcd member on the
 * loopback: a write whose publish fails in any way (here its txn not answered) deletes its chunks,
 * and the leader's next snapshot sweeps the chunks of every snapshot but its own.
 */
import assert from "node:assert/strict";
import { startLoopbackEtcd } from "../../../tools/testing/etcd_cluster.ts";
import { LOOPBACK_ETCD_TEST } from "../../../tools/testing/loopback_rigs.ts";
import { campaign } from "../../../server/rigs/election.ts";
import { GatewayEtcd } from "../../../server/rigs/etcd_gateway.ts";
import { type Etcd, EtcdUnavailable } from "../../../server/rigs/etcd.ts";
import { groupKeys } from "../../../server/rigs/keys.ts";
import { readSnapshot, snapshotKeys, writeSnapshot } from "../../../server/rigs/snapshot.ts";

const opts = LOOPBACK_ETCD_TEST;
const keys = groupKeys("show");
const where = snapshotKeys(keys);

/** The ids of the snapshots whose chunks are in etcd. */
async function chunkIds(etcd: Etcd): Promise<string[]> {
  const { kvs } = await etcd.range(where.chunks, { prefix: true, keysOnly: true });
  return [...new Set(kvs.map((kv) => kv.key.slice(where.chunks.length).split("/")[0]!))];
}

Deno.test({
  ...opts,
  name: "writeSnapshot: a failed publish leaves no chunks; the next snapshot sweeps strays",
  fn: async () => {
    const solo = await startLoopbackEtcd();
    try {
      const etcd = new GatewayEtcd([solo.url]);
      await campaign(etcd, `${keys.election}a`, await etcd.grant(30));
      // The meta's txn is not answered (the member went away then): the write fails.
      const failing: Etcd = {
        endpoint: etcd.endpoint,
        range: (key, o) => etcd.range(key, o),
        put: (key, value, lease) => etcd.put(key, value, lease),
        txn: (txn) =>
          txn.success.some((op) => "put" in op && op.put.key === where.meta)
            ? Promise.reject(new EtcdUnavailable("No etcd member answered /v3/kv/txn"))
            : etcd.txn(txn),
        grant: (ttl) => etcd.grant(ttl),
        keepAlive: (lease) => etcd.keepAlive(lease),
        revoke: (lease) => etcd.revoke(lease),
        watch: (prefix, o) => etcd.watch(prefix, o),
      };
      await assert.rejects(writeSnapshot(failing, keys, "a", 5, { songs: [1] }), EtcdUnavailable);
      assert.deepEqual(await chunkIds(etcd), []);
      // A stray left by a rig that died mid-write goes with the next snapshot; its own stays.
      await etcd.put(`${where.chunks}3-dead/0`, "AAAA");
      const meta = await writeSnapshot(etcd, keys, "a", 6, { songs: [1, 2] });
      assert.deepEqual(await chunkIds(etcd), [meta.id]);
      assert.deepEqual((await readSnapshot(etcd, keys))?.state, { songs: [1, 2] });
    } finally {
      await solo.stop();
    }
  },
});
