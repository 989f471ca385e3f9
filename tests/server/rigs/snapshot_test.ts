/**
 * Snapshots of a rig group's log (server/rigs/snapshot.ts, snapshot_keeper.ts, log_applier.ts)
 * against one real etcd member on the loopback, two rigs' appliers and states stood in for (a
 * state each entry changes alike on every rig): the leader's snapshots bound the log and compact
 * etcd's history; a rig away past them comes back equal; a state over etcd's request limit is
 * written in chunks; a rig that does not lead, or was deposed before its txn, is refused.
 */
import assert from "node:assert/strict";
import { LOOPBACK_ETCD_TEST, withLoopbackEtcd } from "../../../tools/testing/loopback_rigs.ts";
import { until } from "../../../tools/testing/until.ts";
import { campaign } from "../../../server/rigs/election.ts";
import type { Etcd, Txn } from "../../../server/rigs/etcd.ts";
import { groupKeys } from "../../../server/rigs/keys.ts";
import { commitEntry } from "../../../server/rigs/edit_log.ts";
import { LogApplier } from "../../../server/rigs/log_applier.ts";
import { SnapshotKeeper } from "../../../server/rigs/snapshot_keeper.ts";
import {
  NotLeading,
  readSnapshot,
  readSnapshotMeta,
  snapshotKeys,
  writeSnapshot,
} from "../../../server/rigs/snapshot.ts";
import type { LogEntry } from "../../../protocol/rigs.ts";

const opts = LOOPBACK_ETCD_TEST;
const keys = groupKeys("show");

function entry(n: number): LogEntry {
  return {
    id: `rig-a:${n}`,
    rig: "rig-a",
    projectId: `p${n % 3}`,
    edits: [{ name: "song.add", params: { title: `s${n}` } }],
  };
}

async function lead(etcd: Etcd, rig: string) {
  const lease = await etcd.grant(30);
  return { lease, campaign: await campaign(etcd, `${keys.election}${rig}`, lease) };
}

/** A rig's applier over a state of Projects (title lists), snapshotting every 10 entries. */
function rig(etcd: Etcd, file: string, isLeader: boolean) {
  let state: Record<string, string[]> = {};
  const keeper = new SnapshotKeeper({
    etcd,
    keys,
    rig: isLeader ? "a" : "b",
    isLeader: () => isLeader,
    everyEntries: 10,
    log: () => {},
    target: {
      capture: () => Promise.resolve(structuredClone(state)),
      restore: (s) => {
        state = structuredClone(s as typeof state);
        return Promise.resolve();
      },
    },
  });
  const applier = new LogApplier({
    etcd,
    keys,
    file,
    log: () => {},
    snapshots: keeper,
    apply: (e, seed) => {
      (state[e.projectId!] ??= []).push(
        `${(e.edits[0]!.params as { title: string }).title}@${seed}`,
      );
      return Promise.resolve({ refusal: null });
    },
  });
  return { applier, keeper, state: () => state };
}

Deno.test({
  ...opts,
  name:
    "SnapshotKeeper: the log stays bounded, etcd's history compacted; a rig away past it comes back equal",
  fn: async () => {
    await withLoopbackEtcd(async ({ solo, etcd, dir }) => {
      await lead(etcd, "a");
      const a = rig(etcd, `${dir}/a.json`, true);
      let b = rig(etcd, `${dir}/b.json`, false);
      await a.applier.start();
      await b.applier.start();
      let last = 0;
      for (let n = 0; n < 25; n++) last = await commitEntry(etcd, keys, entry(n));
      await until("both applied", () => a.applier.applied === last && b.applier.applied === last);
      await b.applier.stop();
      const away = b.applier.applied;

      for (let n = 25; n < 60; n++) {
        last = await commitEntry(etcd, keys, entry(n));
        if (n % 10 === 0) await a.keeper.settled();
      }
      await until("the leader applied", () => a.applier.applied === last);
      await a.keeper.settled();
      const log = (await etcd.range(keys.log, { prefix: true })).kvs;
      assert.ok(log.length <= 10, `the log holds ${log.length} entries`);
      assert.ok(a.keeper.written >= 5 && a.keeper.trimmed >= 50, `${a.keeper.written} snapshots`);
      const oldest = Math.min(...log.map((kv) => kv.modRevision));
      assert.ok(away < oldest, `b kept ${away}, the oldest entry left is ${oldest}`);
      const meta = (await readSnapshotMeta(etcd, keys))!;
      const old = await fetch(`${solo.url}/v3/kv/range`, {
        method: "POST",
        body: JSON.stringify({ key: btoa(keys.log), revision: String(away) }),
      }).then((r) => r.json());
      assert.match(String(old.message ?? old.error), /compacted/, "etcd's history compacted");

      b = rig(etcd, `${dir}/b.json`, false);
      await b.applier.start();
      await until("b caught up", () => b.applier.applied === last);
      assert.deepEqual(b.state(), a.state());
      assert.equal(Object.values(b.state()).flat().length, 60);
      assert.ok(meta.revision > away);
      await a.applier.stop();
      await b.applier.stop();
    });
  },
});

Deno.test({
  ...opts,
  name:
    "writeSnapshot: a state over etcd's request limit in chunks; refused to a rig that does not lead or was deposed",
  fn: async () => {
    await withLoopbackEtcd(async ({ etcd }) => {
      const a = await lead(etcd, "a");
      await assert.rejects(writeSnapshot(etcd, keys, "b", 5, {}), NotLeading);
      // 1.6 MB that gzip cannot shrink: over etcd's 1.5 MiB request limit in one put.
      const bytes = new Uint8Array(1_200_000);
      for (let i = 0; i < bytes.length; i += 65_536) {
        crypto.getRandomValues(bytes.subarray(i, i + 65_536));
      }
      const noise = bytes.toBase64();
      const big = await writeSnapshot(etcd, keys, "a", 7, { noise });
      assert.ok(big.chunks >= 3, `${big.chunks} chunks of ${big.gzipBytes} bytes`);
      assert.deepEqual((await readSnapshot(etcd, keys))!.state, { noise });
      // An older revision than the snapshot there is never published over it.
      await assert.rejects(writeSnapshot(etcd, keys, "a", 6, { older: true }), NotLeading);
      assert.equal((await readSnapshotMeta(etcd, keys))!.id, big.id);

      // Deposed between its read of who leads and its txn: etcd refuses the fenced txn.
      const racing = {
        range: (key: string, o?: { prefix?: boolean }) => etcd.range(key, o),
        put: (key: string, value: string) => etcd.put(key, value),
        txn: async (txn: Txn) => {
          if (txn.success.some((op) => "put" in op)) {
            await etcd.revoke(a.lease);
            await lead(etcd, "b");
          }
          return await etcd.txn(txn);
        },
      } as Etcd;
      await assert.rejects(writeSnapshot(racing, keys, "a", 9, { late: true }), NotLeading);
      assert.equal((await readSnapshotMeta(etcd, keys))!.id, big.id, "the snapshot stays");
      const chunks = await etcd.range(snapshotKeys(keys).chunks, { prefix: true });
      assert.ok(chunks.kvs.every((kv) => kv.key.includes(`/${big.id}/`)), "its chunks removed");

      // A watch restarted from a compacted revision is told, and goes on from what etcd has.
      const now = await etcd.put(`${keys.root}x`, "1");
      await etcd.compact(now);
      const told: number[] = [];
      const seen: string[] = [];
      const stop = new AbortController();
      const watching = etcd.watch(`${keys.root}x`, {
        fromRevision: 2,
        onCompacted: (revision) => told.push(revision),
        onEvents: (events) => seen.push(...events.map((e) => e.kv.value)),
        signal: stop.signal,
      });
      await until("told", () => told.length > 0);
      await etcd.put(`${keys.root}x`, "2");
      await until("the watch goes on", () => seen.includes("2"));
      assert.deepEqual(told, [now]);
      stop.abort();
      await watching;
    }, { timeoutMs: 5000 });
  },
});
