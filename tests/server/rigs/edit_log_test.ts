/**
 * The edit log of a rig group (server/rigs/edit_log.ts, log_applier.ts)
 * against one real etcd member on the loopback: commits retried on a moving
 * head and on a new leader, refused without a leader; the applier applies in
 * revision order, seeded, keeps its revision and goes on from it after a restart,
 * also when etcd's history was compacted meanwhile.
 */
import assert from "node:assert/strict";
import { startLoopbackEtcd } from "../../_helpers/etcd_cluster.ts";
import { needs } from "../../_helpers/peers.ts";
import { until } from "../../_helpers/until.ts";
import { campaign } from "../../../server/rigs/election.ts";
import { GatewayEtcd } from "../../../server/rigs/etcd_gateway.ts";
import type { Etcd, Txn } from "../../../server/rigs/etcd.ts";
import { groupKeys } from "../../../server/rigs/keys.ts";
import { commitEntry } from "../../../server/rigs/edit_log.ts";
import { type Applied, LogApplier } from "../../../server/rigs/log_applier.ts";
import { CueportError } from "../../../server/core/errors.ts";
import type { LogEntry } from "../../../protocol/rigs.ts";

const opts = { ...needs("etcd"), sanitizeResources: false, sanitizeOps: false };
const keys = groupKeys("show");

function entry(n: number): LogEntry {
  return {
    id: `rig-a:${n}`,
    rig: "rig-a",
    projectId: "show",
    edits: [{ name: "song.add", params: { title: `s${n}` } }],
  };
}

/** A rig's campaign key under a lease of its own: it leads while it is the oldest. */
async function lead(etcd: Etcd, rig: string) {
  const lease = await etcd.grant(30);
  return { lease, campaign: await campaign(etcd, `${keys.election}${rig}`, lease) };
}

Deno.test({
  ...opts,
  name:
    "commitEntry: refused without a leader; concurrent commits all land, once each; a new leader mid-commit",
  fn: async () => {
    const solo = await startLoopbackEtcd();
    const etcd = new GatewayEtcd([solo.url], { timeoutMs: 2000 });
    try {
      await assert.rejects(
        commitEntry(etcd, keys, entry(0)),
        (e) =>
          e instanceof CueportError && e.code === "GROUP_NO_QUORUM" && /no rig/.test(e.message),
      );
      const main = await lead(etcd, "main");
      // Ten at once on one Project: each retries on the new head until it lands.
      await Promise.all(Array.from({ length: 10 }, (_, i) => commitEntry(etcd, keys, entry(i))));
      const { kvs } = await etcd.range(`${keys.log}show/`, { prefix: true });
      assert.equal(kvs.length, 10);
      assert.deepEqual(
        kvs.map((kv) => JSON.parse(kv.value).id).sort(),
        Array.from({ length: 10 }, (_, i) => `rig-a:${i}`).sort(),
      );
      assert.equal((await etcd.range(`${keys.heads}show`)).kvs[0]!.value, "10");

      // The leader is replaced between the read and the txn: the fenced txn fails, the
      // next try is made against the new leader and lands.
      let fenceFailed = 0;
      let replaced = false;
      const racing: Etcd = Object.create(etcd);
      racing.txn = async (txn: Txn) => {
        const isCommit = txn.success.some((op) => "put" in op);
        if (isCommit && !replaced) {
          replaced = true;
          await etcd.revoke(main.lease);
          await lead(etcd, "backup");
        }
        const answer = await etcd.txn(txn);
        if (isCommit && !answer.succeeded) fenceFailed++;
        return answer;
      };
      await commitEntry(racing, keys, entry(10));
      assert.equal(fenceFailed, 1, "the txn fenced by the deposed leader was refused");
      assert.equal((await etcd.range(`${keys.heads}show`)).kvs[0]!.value, "11");
    } finally {
      await solo.stop();
    }
  },
});

Deno.test({
  ...opts,
  name:
    "LogApplier: in revision order, seeded; keeps its revision and goes on from it after a restart",
  fn: async () => {
    const solo = await startLoopbackEtcd();
    const etcd = new GatewayEtcd([solo.url], { timeoutMs: 2000 });
    const dir = await Deno.makeTempDir();
    const seen: string[] = [];
    let failOnce = true;
    const applier = () =>
      new LogApplier({
        etcd,
        keys,
        file: `${dir}/rig-log.json`,
        log: () => {},
        retryMs: 10,
        apply: (e, seed) => {
          // The player not ready once: the same entry is tried again, not skipped.
          if (failOnce) {
            failOnce = false;
            return Promise.reject(new Error("not ready"));
          }
          seen.push(`${e.id}@${seed}`);
          const outcome: Applied = e.id.endsWith(":2") ? { refusal: new Error("refused") } : {
            result: {
              projectId: "show",
              revision: seen.length,
              edits: [],
              changed: { clips: [], songs: [], fields: [], presets: [] },
              history: { undo: 0, redo: 0 },
            },
          };
          return Promise.resolve(outcome);
        },
      });
    try {
      await lead(etcd, "main");
      const first = applier();
      await first.start();
      const waits = [0, 1, 2].map((n) => first.wait(`rig-a:${n}`).outcome);
      const revisions: number[] = [];
      for (const n of [0, 1, 2]) revisions.push(await commitEntry(etcd, keys, entry(n)));
      const outcomes = await Promise.all(waits);
      assert.deepEqual(seen, [0, 1, 2].map((n) => `rig-a:${n}@r${revisions[n]}`));
      assert.ok("result" in outcomes[0]! && "refusal" in outcomes[2]!);
      await until(
        "the revision kept",
        async () =>
          JSON.parse(await Deno.readTextFile(`${dir}/rig-log.json`)).revision === revisions[2],
      );
      await first.stop();

      // Away: two more entries, and etcd's history compacted past them (an etcd run with
      // --auto-compaction-retention); started again, it applies those two only.
      for (const n of [3, 4]) revisions.push(await commitEntry(etcd, keys, entry(n)));
      const compacted = await fetch(`${solo.url}/v3/kv/compaction`, {
        method: "POST",
        body: JSON.stringify({ revision: String(revisions[4]!) }),
      });
      assert.equal(compacted.status, 200, await compacted.text());
      const second = applier();
      await second.start();
      await until("the two applied", () => second.applied === revisions[4]);
      await second.stop();
      assert.deepEqual(seen.slice(3), [3, 4].map((n) => `rig-a:${n}@r${revisions[n]}`));
    } finally {
      await solo.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  ...opts,
  name:
    "LogApplier: a watch that restarts past a compaction reads the log again and misses nothing",
  fn: async () => {
    const solo = await startLoopbackEtcd();
    const etcd = new GatewayEtcd([solo.url], { timeoutMs: 2000 });
    const dir = await Deno.makeTempDir();
    // The applier's watch is held back until released: as a watch that restarts late.
    const release = Promise.withResolvers<void>();
    const held = {
      range: (key: string, o?: { prefix?: boolean }) => etcd.range(key, o),
      txn: (txn: Txn) => etcd.txn(txn),
      watch: async (prefix: string, o: Parameters<Etcd["watch"]>[1]) => {
        await release.promise;
        return etcd.watch(prefix, o);
      },
    } as Etcd;
    const seen: string[] = [];
    const applier = new LogApplier({
      etcd: held,
      keys,
      file: `${dir}/rig-log.json`,
      log: () => {},
      apply: (e) => {
        seen.push(e.id);
        return Promise.resolve({ refusal: null });
      },
    });
    try {
      await lead(etcd, "main");
      await applier.start();
      let last = 0;
      for (const n of [0, 1, 2]) last = await commitEntry(etcd, keys, entry(n));
      await etcd.compact(last);
      release.resolve();
      await until("the three applied", () => applier.applied === last);
      assert.deepEqual(seen, ["rig-a:0", "rig-a:1", "rig-a:2"]);
    } finally {
      await applier.stop();
      await solo.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
