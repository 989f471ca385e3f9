/**
 * A keyed edit (`Idempotency-Key`) whose entry a snapshot covers (server/rigs/replicated_edits.ts,
 * snapshot_keeper.ts), on one real etcd member on the loopback with stand-in players: the rig
 * that took the snapshot answers the client's retry with the same key as the first time (the
 * outcome is known: it committed), not GROUP_OUTCOME_UNKNOWN. The snapshot carries the keys of
 * the entries it covers with their answers, as long as the keys live in etcd (`KEY_LIFE_MS`, at
 * most `KEYS_KEPT`), past the newest 2,000 entries' answers.
 */
import assert from "node:assert/strict";
import { LOOPBACK_ETCD_TEST, withLoopbackEtcd } from "../../../tools/testing/loopback_rigs.ts";
import { until } from "../../../tools/testing/until.ts";
import { campaign } from "../../../server/rigs/election.ts";
import type { Etcd } from "../../../server/rigs/etcd.ts";
import { groupKeys } from "../../../server/rigs/keys.ts";
import { KEY_LIFE_MS, KEYS_KEPT } from "../../../server/rigs/edit_log.ts";
import { type LogTarget, ReplicatedEdits } from "../../../server/rigs/replicated_edits.ts";
import { ANSWERS_KEPT, SnapshotKeeper } from "../../../server/rigs/snapshot_keeper.ts";
import { readSnapshot, readSnapshotMeta } from "../../../server/rigs/snapshot.ts";
import { aloneStatus } from "../../../server/rigs/mod.ts";
import type { EditApplyResult } from "../../../protocol/edits/apply.ts";
import type { LogEntry } from "../../../protocol/rigs.ts";

const keys = groupKeys("show");

/** A rig's player stood in for: a list of titles, captured and restored whole. */
function player(): LogTarget & { titles: () => string[] } {
  let titles: string[] = [];
  return {
    titles: () => titles,
    applyLogged: (entry: LogEntry, seed: string) => {
      const title = (entry.edits[0]!.params as { title: string }).title;
      titles.push(title);
      const result: EditApplyResult = {
        projectId: entry.projectId!,
        revision: titles.length,
        edits: [{ name: "song.add", message: `Song "${title}" added ${seed}` }],
        changed: { clips: [], songs: [], fields: [], presets: [] },
        history: { undo: 0, redo: 0 },
      };
      return Promise.resolve({ result });
    },
    snapshots: {
      capture: () => Promise.resolve([...titles]),
      restore: (state) => Promise.resolve(void (titles = [...state as string[]])),
    },
  };
}

/** Rig `name`'s edits over `etcd`, a snapshot every 5 entries (written only when it leads). */
function rigEdits(etcd: Etcd, name: string, dataDir: string, target: LogTarget) {
  return new ReplicatedEdits({
    group: {
      etcd,
      keys,
      status: () => ({
        ...aloneStatus({ rigName: name }),
        group: "show",
        canEdit: true,
        reason: null,
        isLeader: name === "main",
      }),
    },
    target,
    dataDir,
    log: () => {},
    snapshotEvery: { entries: 5 },
    commitEtcd: etcd,
  });
}

const batch = (title: string) => ({
  projectId: "show",
  edits: [{ name: "song.add", params: { title } }],
});

Deno.test({
  ...LOOPBACK_ETCD_TEST,
  name:
    "ReplicatedEdits: a keyed retry on a rig that took the snapshot covering it answers as the first",
  fn: async () => {
    await withLoopbackEtcd(async ({ etcd }) => {
      const mainDir = await Deno.makeTempDir();
      const backupDir = await Deno.makeTempDir();
      try {
        await campaign(etcd, `${keys.election}main`, await etcd.grant(30));
        const main = rigEdits(etcd, "main", mainDir, player());
        await main.start();
        let backup = rigEdits(etcd, "backup", backupDir, player());
        await backup.start();
        const keyed = { key: "phone/k1", fingerprint: "f1" };
        const first = await backup.commit(batch("keyed"), keyed);
        // The backup is away while the leader applies, snapshots and trims past the keyed entry.
        await backup.stop();
        for (let n = 0; n < 12; n++) await main.commit(batch(`s${n}`));
        await until("the keyed entry trimmed", async () => {
          const log = (await etcd.range(keys.log, { prefix: true })).kvs.map((kv) => kv.value);
          return log.length > 0 && !log.some((v) => v.includes('"keyed"'));
        });
        const target = player();
        backup = rigEdits(etcd, "backup", backupDir, target);
        await backup.start();
        await until("the backup caught up", () => backup.applied === main.applied);
        try {
          const retried = await backup.commit(batch("keyed"), keyed);
          assert.deepEqual(retried, first, "the first time's answer");
          assert.equal(target.titles().filter((t) => t === "keyed").length, 1, "committed once");
        } finally {
          await backup.stop();
        }
        await main.stop();
      } finally {
        await Deno.remove(mainDir, { recursive: true });
        await Deno.remove(backupDir, { recursive: true });
      }
    });
  },
});

/** A keeper over `etcd` whose clock is `now`; "main" leads. */
function keeper(etcd: Etcd, name: string, now: () => number, everyEntries: number) {
  return new SnapshotKeeper({
    etcd,
    keys,
    rig: name,
    target: { capture: () => Promise.resolve("state"), restore: () => Promise.resolve() },
    isLeader: () => name === "main",
    everyEntries,
    log: () => {},
    now,
  });
}

const answer = (n: number) => ({
  result: { revision: n, edits: [{ name: "song.add", message: `s${n}` }] } as EditApplyResult,
});

Deno.test({
  ...LOOPBACK_ETCD_TEST,
  name:
    "SnapshotKeeper: a snapshot carries the keyed entries' answers as long as their keys live, at most KEYS_KEPT",
  fn: async () => {
    await withLoopbackEtcd(async ({ etcd }) => {
      await campaign(etcd, `${keys.election}main`, await etcd.grant(30));
      let now = 0;
      // Entry 1 keyed, its key gone by the snapshot; entry 2 keyed and older than the newest
      // answers (ANSWERS_KEPT) but its key alive.
      const total = ANSWERS_KEPT + 10;
      const main = keeper(etcd, "main", () => now, total);
      await main.applied({
        revision: 1,
        bytes: 10,
        id: "e1",
        outcome: answer(1),
        key: "phone/old",
      });
      now += KEY_LIFE_MS / 2;
      await main.applied({
        revision: 2,
        bytes: 10,
        id: "e2",
        outcome: answer(2),
        key: "phone/alive",
      });
      for (let n = 3; n < total; n++) {
        await main.applied({ revision: n, bytes: 10, id: `e${n}`, outcome: answer(n) });
      }
      now += KEY_LIFE_MS / 2 + 1;
      await main.applied({ revision: total, bytes: 10, id: `e${total}`, outcome: answer(total) }); // due: the snapshot
      await main.settled();
      assert.equal(main.written, 1);
      const heldKeys = async () =>
        ((await readSnapshot(etcd, keys))!.state as { keys: [string, unknown][] }).keys
          .map(([key]) => key);
      assert.deepEqual(await heldKeys(), ["phone/alive"], "the key gone by time is not carried");

      const backup = keeper(etcd, "backup", () => 5, 1000);
      await backup.restore((await readSnapshotMeta(etcd, keys))!);
      assert.deepEqual(backup.answerOf("e2", "phone/alive"), answer(2));
      assert.equal(backup.answerOf("e2"), undefined, "not among the newest answers");
      assert.equal(backup.answerOf("e1", "phone/old"), undefined);
      assert.equal(backup.answerOf("other", "phone/alive"), undefined, "the key's own entry only");

      // By count: of KEYS_KEPT + 5 keyed entries, the newest KEYS_KEPT.
      const many = keeper(etcd, "main", () => now, KEYS_KEPT + 5);
      for (let n = 1; n <= KEYS_KEPT + 5; n++) {
        await many.applied({
          revision: total + n,
          bytes: 10,
          id: `m${n}`,
          outcome: answer(n),
          key: `phone/m${n}`,
        });
      }
      await many.settled();
      assert.equal(many.written, 1);
      const carried = await heldKeys();
      assert.equal(carried.length, KEYS_KEPT);
      assert.deepEqual([carried[0], carried.at(-1)], ["phone/m6", `phone/m${KEYS_KEPT + 5}`]);
    });
  },
});
