/**
 * The edit log of a rig group (server/rigs/edit_log.ts, log_applier.ts)
 * against one real etcd member on the loopback: commits retried on a moving
 * head and on a new leader, refused without a leader; the applier applies in
 * revision order, seeded, keeps its revision and goes on from it after a restart,
 * also when etcd's history was compacted meanwhile.
 */
import assert from "node:assert/strict";
import { LOOPBACK_ETCD_TEST, withLoopbackEtcd } from "../../../tools/testing/loopback_rigs.ts";
import { until } from "../../../tools/testing/until.ts";
import { campaign } from "../../../server/rigs/election.ts";
import { type Etcd, EtcdUnavailable, type Txn, type TxnAnswer } from "../../../server/rigs/etcd.ts";
import { groupKeys } from "../../../server/rigs/keys.ts";
import { commitEntry, commitOnce } from "../../../server/rigs/edit_log.ts";
import { type Applied, LogApplier } from "../../../server/rigs/log_applier.ts";
import { CueportError } from "../../../server/core/errors.ts";
import type { LogEntry } from "../../../protocol/rigs.ts";

const opts = LOOPBACK_ETCD_TEST;
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
    await withLoopbackEtcd(async ({ etcd }) => {
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
    });
  },
});

Deno.test({
  ...opts,
  name:
    "LogApplier: in revision order, seeded; keeps its revision and goes on from it after a restart",
  fn: async () => {
    await withLoopbackEtcd(async ({ solo, etcd, dir }) => {
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
    });
  },
});

Deno.test({
  ...opts,
  name:
    "LogApplier: a watch that restarts past a compaction reads the log again and misses nothing",
  fn: async () => {
    await withLoopbackEtcd(async ({ etcd, dir }) => {
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
      }
    });
  },
});

/** `etcd` whose commit txns (those that put) go through `lose` first: it may drop their answer. */
function losing(
  etcd: Etcd,
  lose: (txn: Txn, send: () => Promise<TxnAnswer>) => Promise<TxnAnswer>,
): Etcd {
  const wrapped: Etcd = Object.create(etcd);
  wrapped.txn = (txn: Txn) => {
    const send = () => etcd.txn(txn);
    return txn.success.some((op) => "put" in op) ? lose(txn, send) : send();
  };
  return wrapped;
}

/** The ids of the entries in the log of `group`'s Project "show". */
async function loggedIds(etcd: Etcd, group: string): Promise<string[]> {
  const { kvs } = await etcd.range(`${groupKeys(group).log}show/`, { prefix: true });
  return kvs.map((kv) => (JSON.parse(kv.value) as LogEntry).id);
}

Deno.test({
  ...opts,
  name:
    "commitEntry: a txn applied but its answer lost is committed once; one that never reached etcd is refused or unknown, never both",
  fn: async () => {
    await withLoopbackEtcd(async ({ etcd }) => {
      const lost = () => new EtcdUnavailable("No etcd member answered /v3/kv/txn: timed out");
      // Applied by etcd, its answer lost (a slow etcd past the request's timeout): committed, once.
      const slow = groupKeys("slow");
      await campaign(etcd, `${slow.election}main`, await etcd.grant(30));
      let dropped = 0;
      const applied = losing(etcd, async (_, send) => {
        await send();
        if (dropped++ === 0) throw lost();
        return await send();
      });
      const revision = await commitEntry(applied, slow, entry(1));
      assert.deepEqual(await loggedIds(etcd, "slow"), ["rig-a:1"]);
      const [kv] = (await etcd.range(`${slow.log}show/`, { prefix: true })).kvs;
      assert.equal(revision, kv!.modRevision, "answered the entry's own revision");

      // Applied, answer lost, and another edit lands before the outcome is read: still once.
      const busy = groupKeys("busy");
      await campaign(etcd, `${busy.election}main`, await etcd.grant(30));
      let first = true;
      const overtaken = losing(etcd, async (_, send) => {
        const answer = await send();
        if (!first) return answer;
        first = false;
        await commitEntry(etcd, busy, entry(2));
        throw lost();
      });
      await commitEntry(overtaken, busy, entry(3));
      assert.deepEqual(await loggedIds(etcd, "busy"), ["rig-a:3", "rig-a:2"]);

      // Never reached etcd, and the leader went meanwhile: refused, nothing in the log.
      const gone = groupKeys("gone");
      const lease = await etcd.grant(30);
      await campaign(etcd, `${gone.election}main`, lease);
      const unsent = losing(etcd, async () => {
        await etcd.revoke(lease);
        throw lost();
      });
      await assert.rejects(
        commitEntry(unsent, gone, entry(4)),
        (e) => e instanceof CueportError && e.code === "GROUP_NO_QUORUM",
      );
      assert.deepEqual(await loggedIds(etcd, "gone"), []);

      // Never answered at all: unknown past the deadline (the entry named), not a refusal.
      const mute = groupKeys("mute");
      await campaign(etcd, `${mute.election}main`, await etcd.grant(30));
      const silent = losing(etcd, () => Promise.reject(lost()));
      await assert.rejects(
        commitOnce(silent, mute, entry(5), { deadlineMs: 500 }),
        (e) =>
          e instanceof CueportError && e.code === "GROUP_OUTCOME_UNKNOWN" &&
          e.message.includes("rig-a:5"),
      );
    });
  },
});

Deno.test({
  ...opts,
  name:
    "commitOnce: a keyed entry sent again (another rig, a lost answer) finds the first; a key reused for other edits is refused",
  fn: async () => {
    await withLoopbackEtcd(async ({ etcd }) => {
      const keyed = groupKeys("keyed");
      await campaign(etcd, `${keyed.election}main`, await etcd.grant(30));
      const lease = await etcd.grant(60);
      const key = { key: "phone/k1", fingerprint: "f1", lease };
      const one = await commitOnce(etcd, keyed, entry(1), { key });
      // The client's retry on another rig: a new entry with the same key.
      const again = await commitOnce(etcd, keyed, { ...entry(2), rig: "rig-b" }, { key });
      assert.deepEqual(again, one);
      assert.deepEqual(await loggedIds(etcd, "keyed"), ["rig-a:1"]);
      await assert.rejects(
        commitOnce(etcd, keyed, entry(3), { key: { ...key, fingerprint: "f2" } }),
        (e) => e instanceof CueportError && e.code === "IDEMPOTENCY_KEY_REUSED",
      );
      // Applied, its answer lost: the resend finds its own key, answered as committed.
      let dropped = false;
      const lossy = losing(etcd, async (_, send) => {
        await send();
        if (!dropped) throw (dropped = true, new EtcdUnavailable("timed out"));
        return await send();
      });
      const k2 = { ...key, key: "phone/k2" };
      const four = await commitOnce(lossy, keyed, entry(4), { key: k2 });
      assert.equal(four.id, "rig-a:4");
      assert.deepEqual(await loggedIds(etcd, "keyed"), ["rig-a:1", "rig-a:4"]);
      // The key goes with its lease.
      await etcd.revoke(lease);
      assert.deepEqual((await etcd.range(`${keyed.root}keys/`, { prefix: true })).kvs, []);
    });
  },
});
