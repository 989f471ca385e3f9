/**
 * Watches whose start etcd compacted away (`WatchOptions.onCompacted`, required of every watch):
 * the group's actions read their prefix again and run each entry once; the media lists its
 * announcements again; the group view reads its records again. And the view watches only the
 * records and campaigns, not the whole group (its log and snapshot chunks). On an `Etcd` of the
 * test's own that keeps keys in a map and tells the test each watch it was asked for.
 */
import assert from "node:assert/strict";
import { until } from "../../../tools/testing/until.ts";
import type { Etcd, Kv, TxnAnswer, WatchOptions } from "../../../server/rigs/etcd.ts";
import { type GroupActionEntry, GroupActions } from "../../../server/rigs/actions.ts";
import { RigGroup } from "../../../server/rigs/group.ts";
import { groupKeys } from "../../../server/rigs/keys.ts";
import { mediaPrefix, RigMedia } from "../../../server/rigs/media_copies.ts";
import { ShowClock } from "../../../server/rigs/clock/mod.ts";
import { VirtualClock } from "../../../player/clock.ts";
import type { ActionResult } from "../../../server/core/action_runner.ts";
import type { GroupStatus } from "../../../protocol/rigs.ts";

const keys = groupKeys("show");

/** An etcd in a map: its watches wait for their signal and are kept, with their prefix. */
function mapEtcd() {
  let revision = 1;
  const kvs = new Map<string, Kv>();
  const watches: Array<{ prefix: string; options: WatchOptions }> = [];
  const put = (key: string, value: string) => {
    revision++;
    const old = kvs.get(key);
    const createRevision = old?.createRevision ?? revision;
    kvs.set(key, { key, value, createRevision, modRevision: revision, lease: "7" });
    return revision;
  };
  const etcd: Etcd = {
    endpoint: "http://etcd.test:2379",
    range: (key, o) =>
      Promise.resolve({
        kvs: [...kvs.values()].filter((kv) => o?.prefix ? kv.key.startsWith(key) : kv.key === key),
        revision,
      }),
    put: (key, value) => Promise.resolve(put(key, value)),
    txn: (txn): Promise<TxnAnswer> => {
      const op = txn.success[0]!;
      if ("put" in op) put(op.put.key, op.put.value);
      const key = "put" in op ? op.put.key : "";
      return Promise.resolve({ succeeded: true, revision, ranges: [[kvs.get(key)!]] });
    },
    grant: () => Promise.resolve("7"),
    keepAlive: () => Promise.resolve(5),
    revoke: () => Promise.resolve(),
    watch: (prefix, options) => {
      watches.push({ prefix, options });
      return new Promise((resolve) => options.signal.addEventListener("abort", () => resolve()));
    },
  };
  /** Tells the live watches of `prefix` that their history was compacted. */
  const compact = (prefix: string) => {
    for (const w of watches) {
      if (w.prefix === prefix && !w.options.signal.aborted) w.options.onCompacted(revision);
    }
  };
  return { etcd, put, watches, compact };
}

Deno.test("GroupActions: entries hidden by a compaction are read again and run once each", async () => {
  const { etcd, put, watches, compact } = mapEtcd();
  const prefix = `${keys.root}actions/`;
  const sent: string[] = [];
  const actions = new GroupActions({
    etcd,
    prefix,
    rig: "b",
    group: "show",
    show: new ShowClock(new VirtualClock(1_000_000)),
    leadMs: 120,
    send: (action) => {
      sent.push(String(action.params.clipId));
      return Promise.resolve({ applied: true, message: "ok" } as ActionResult);
    },
    log: () => {},
  });
  actions.start();
  try {
    await until("watching", () => watches.length === 1);
    const entry = (id: string): GroupActionEntry => ({
      id,
      from: "a",
      showTime: 0, // past: runs at once
      seed: 1,
      action: { name: "TRIGGER_CLIP_IN", projectId: null, params: { clipId: id } },
    } as unknown as GroupActionEntry);
    put(`${prefix}a1`, JSON.stringify(entry("a1"))); // in the gap: the watch never delivers it
    compact(prefix);
    await until("the entry in the gap run", () => sent.length === 1);
    compact(prefix); // read again: already seen, not run twice
    put(`${prefix}a2`, JSON.stringify(entry("a2")));
    compact(prefix);
    await until("the second run", () => sent.length === 2);
    assert.deepEqual(sent, ["a1", "a2"]);
  } finally {
    await actions.stop();
  }
});

Deno.test("RigMedia: announcements hidden by a compaction are listed again", async () => {
  const { etcd, put, watches, compact } = mapEtcd();
  const dataDir = await Deno.makeTempDir();
  const media = new RigMedia({
    group: { etcd, keys, status: () => ({ rig: "b" }) as unknown as GroupStatus },
    dataDir,
    log: () => {},
  });
  const wanted: string[] = [];
  media.ensure = (sha256) => {
    wanted.push(sha256);
    return Promise.resolve();
  };
  await media.start();
  try {
    await until("watching", () => watches.length === 1);
    const sha = "ab".repeat(32);
    put(`${mediaPrefix(keys, sha)}a`, JSON.stringify({ size: 3 }));
    compact(mediaPrefix(keys));
    await until("the file announced in the gap wanted", () => wanted.length === 1);
    assert.deepEqual(wanted, [sha]);
  } finally {
    await media.stop();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("RigGroup: watches its records and campaigns only, and reads them again after a compaction", async () => {
  const { etcd, put, watches, compact } = mapEtcd();
  const group = new RigGroup({
    etcd,
    group: "show",
    rig: "main",
    leaseSeconds: 30,
    describe: () => ({ addresses: [], ports: {}, version: "0" }),
    endpoints: [etcd.endpoint],
    log: () => {},
  });
  group.start();
  try {
    await until("joined", () => group.status().canEdit);
    assert.deepEqual(watches.map((w) => w.prefix).sort(), [keys.election, keys.rigs]);
    const record = JSON.parse(
      (await etcd.range(`${keys.rigs}main`)).kvs[0]!.value,
    ) as Record<string, unknown>;
    put(`${keys.rigs}backup`, JSON.stringify({ ...record, name: "backup" })); // in the gap
    compact(keys.rigs);
    await until(
      "the rig joined in the gap seen",
      () => group.status().members.some((m) => m.name === "backup"),
    );
    assert.equal(watches.filter((w) => !w.options.signal.aborted).length, 2);
  } finally {
    await group.stop();
  }
});
