/**
 * A rig's own edit covered by the group's snapshot before it applied it (server/rigs/log_applier.ts,
 * snapshot_keeper.ts), on one real etcd member on the loopback with states stood in for: the rig
 * away while its entries are applied, snapshotted and trimmed by the leader answers its clients at
 * once from the outcomes the snapshot carries (the leader's result, or its refusal), not after the
 * 60 s TIMEOUT.
 */
import assert from "node:assert/strict";
import { LOOPBACK_ETCD_TEST, withLoopbackEtcd } from "../../../tools/testing/loopback_rigs.ts";
import { until } from "../../../tools/testing/until.ts";
import { campaign } from "../../../server/rigs/election.ts";
import type { Etcd } from "../../../server/rigs/etcd.ts";
import { groupKeys } from "../../../server/rigs/keys.ts";
import { commitEntry } from "../../../server/rigs/edit_log.ts";
import { type Applied, LogApplier } from "../../../server/rigs/log_applier.ts";
import { SnapshotKeeper } from "../../../server/rigs/snapshot_keeper.ts";
import { RpcError } from "../../../protocol/jsonrpc.ts";
import type { LogEntry } from "../../../protocol/rigs.ts";

const keys = groupKeys("show");

function entry(rig: string, n: number, title = `s${n}`): LogEntry {
  return {
    id: `${rig}:${n}`,
    rig,
    projectId: "p",
    edits: [{ name: "song.add", params: { title } }],
  };
}

/** A rig's applier over a list of titles (the stand-in state): "bad" is refused on every rig. */
function rig(etcd: Etcd, name: string, file: string) {
  let titles: string[] = [];
  const keeper = new SnapshotKeeper({
    etcd,
    keys,
    rig: name,
    isLeader: () => name === "a",
    everyEntries: 10,
    log: () => {},
    target: {
      capture: () => Promise.resolve([...titles]),
      restore: (s) => Promise.resolve(void (titles = [...s as string[]])),
    },
  });
  const applier = new LogApplier({
    etcd,
    keys,
    file,
    log: () => {},
    snapshots: keeper,
    apply: (e) => {
      const title = (e.edits[0]!.params as { title: string }).title;
      if (title === "bad") return Promise.resolve({ refusal: new RpcError(-32010, "refused") });
      titles.push(title);
      return Promise.resolve({ result: { title, count: titles.length } } as unknown as Applied);
    },
  });
  return { applier, keeper, titles: () => titles };
}

Deno.test({
  ...LOOPBACK_ETCD_TEST,
  name:
    "A rig's own edits covered by a snapshot before it applied them: answered from the snapshot",
  fn: async () => {
    await withLoopbackEtcd(async ({ etcd, dir }) => {
      await campaign(etcd, `${keys.election}a`, await etcd.grant(30));
      const a = rig(etcd, "a", `${dir}/a.json`);
      const b = rig(etcd, "b", `${dir}/b.json`);
      await a.applier.start();
      // Rig b commits two edits and is away (its applier not started) while they are applied.
      const mine = [entry("b", 1, "from b"), entry("b", 2, "bad")];
      const waits = mine.map((e) => b.applier.wait(e.id));
      for (const e of mine) b.applier.committed(e.id, await commitEntry(etcd, keys, e));
      let last = 0;
      for (let n = 0; n < 25; n++) last = await commitEntry(etcd, keys, entry("a", n));
      await until("the leader applied", () => a.applier.applied === last);
      await a.keeper.settled();
      assert.ok(a.keeper.written >= 2, `${a.keeper.written} snapshots`);
      const left = (await etcd.range(keys.log, { prefix: true })).kvs.map((kv) => kv.value);
      assert.ok(!left.some((v) => v.includes("from b")), "b's entries trimmed");

      await b.applier.start();
      const [applied, refused] = await Promise.all(waits.map((w) => w.outcome));
      assert.deepEqual(applied, { result: { title: "from b", count: 1 } });
      assert.ok("refusal" in refused! && refused.refusal instanceof RpcError);
      assert.deepEqual([refused.refusal.code, refused.refusal.message], [-32010, "refused"]);
      await until("b caught up", () => b.applier.applied === last);
      assert.deepEqual(b.titles(), a.titles());
      await a.applier.stop();
      await b.applier.stop();
    });
  },
});
