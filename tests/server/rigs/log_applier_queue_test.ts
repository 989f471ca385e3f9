/**
 * The group log applier's queue (server/rigs/log_applier.ts) against a scripted etcd: a catch-up
 * read after a compacted watch that fails once still runs before the watch's later events, and a
 * player away while the log grows keeps a bounded queue, then catches up from the log.
 */
import assert from "node:assert/strict";
import { until } from "../../../tools/testing/until.ts";
import type { Etcd, Kv, Txn, WatchEvent, WatchOptions } from "../../../server/rigs/etcd.ts";
import { groupKeys } from "../../../server/rigs/keys.ts";
import { LogApplier } from "../../../server/rigs/log_applier.ts";

const keys = groupKeys("show");

/** The log entry at revision `rev`, `e<rev>`. */
function kv(rev: number): Kv {
  return {
    key: `${keys.log}show/${String(rev).padStart(12, "0")}`,
    value: JSON.stringify({
      id: `e${rev}`,
      rig: "a",
      projectId: "show",
      edits: [{ name: "song.add", params: {} }],
    }),
    modRevision: rev,
    createRevision: rev,
    lease: "0",
  };
}

/** An etcd whose txns (the catch-up reads) answer `reads` in turn and whose watch runs `watch`. */
function scripted(
  reads: Array<(txn: Txn) => Promise<{ succeeded: boolean; revision: number; ranges: Kv[][] }>>,
  watch: (o: WatchOptions) => void,
): Etcd & { txns: number } {
  const fake = {
    endpoint: "fake",
    txns: 0,
    txn(t: Txn) {
      const read = reads[Math.min(fake.txns, reads.length - 1)]!;
      fake.txns++;
      return read(t);
    },
    watch(_prefix: string, o: WatchOptions) {
      watch(o);
      return new Promise<void>((r) => o.signal.addEventListener("abort", () => r()));
    },
  };
  return fake as unknown as Etcd & { txns: number };
}

const answer = (revision: number, kvs: Kv[]) =>
  Promise.resolve({ succeeded: true, revision, ranges: [kvs, []] });

Deno.test("a catch-up that failed once after a compaction runs before the watch's later events", async () => {
  const etcd = scripted([
    () => answer(1, []),
    () => Promise.reject(new Error("member away")),
    () => answer(4, [kv(2), kv(3), kv(4)]),
  ], (o) => {
    o.onCompacted(4); // entries 2 and 3 went with the history
    o.onEvents([{ type: "put", kv: kv(4) }], 4);
  });
  const seen: string[] = [];
  const dir = await Deno.makeTempDir();
  const applier = new LogApplier({
    etcd,
    keys,
    file: `${dir}/k.json`,
    log: () => {},
    retryMs: 1,
    apply: (e) => {
      seen.push(e.id);
      return Promise.resolve({ refusal: null });
    },
  });
  try {
    await applier.start();
    await until("the log applied up to 4", () => applier.applied >= 4);
    assert.deepEqual(seen, ["e2", "e3", "e4"]);
  } finally {
    await applier.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a player away keeps the queue bounded, then catches up from the log in order", async () => {
  const total = 50;
  const log = Array.from({ length: total }, (_, i) => kv(i + 2));
  let deliver: (events: WatchEvent[]) => void = () => {};
  const etcd = scripted([() => answer(1, []), () => answer(total + 1, log)], (o) => {
    deliver = (events) => o.onEvents(events, events.at(-1)!.kv.modRevision);
  });
  let away = true;
  const seen: string[] = [];
  const dir = await Deno.makeTempDir();
  const applier = new LogApplier({
    etcd,
    keys,
    file: `${dir}/k.json`,
    log: () => {},
    retryMs: 1,
    queueLimit: 10,
    apply: (e) => {
      if (away) return Promise.reject(new Error("the player is away"));
      seen.push(e.id);
      return Promise.resolve({ refusal: null });
    },
  });
  try {
    await applier.start();
    await until("the watch started", () => etcd.txns >= 1);
    for (const one of log) deliver([{ type: "put", kv: one }]);
    assert.ok(applier.queued <= 10, `${applier.queued} events queued past the limit of 10`);
    away = false;
    await until("the log applied", () => applier.applied >= total + 1);
    assert.deepEqual(seen, log.map((k) => JSON.parse(k.value).id));
  } finally {
    await applier.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
