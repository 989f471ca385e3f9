/**
 * `replicateEdits` (server/rigs/replicated_edits.ts) with one real etcd member
 * on the loopback and a stand-in for the rig's group and player: a rig that
 * cannot edit refuses before etcd is written; an edit is answered with what
 * this rig's player made of it, applied from the log with its seed; a refusal
 * is answered as the player made it; a keyed edit retried on another rig is answered the first
 * outcome, committed once; stopped, the runner is alone again.
 */
import assert from "node:assert/strict";
import { LOOPBACK_ETCD_TEST, withLoopbackEtcd } from "../../../tools/testing/loopback_rigs.ts";
import { campaign } from "../../../server/rigs/election.ts";
import { groupKeys } from "../../../server/rigs/keys.ts";
import {
  ReplicatedEdits,
  type ReplicatedRunner,
  replicateEdits,
} from "../../../server/rigs/replicated_edits.ts";
import { CueportError } from "../../../server/core/errors.ts";
import { EditRunner } from "../../../server/core/edit_runner.ts";
import { IdempotencyStore } from "../../../server/core/idempotency.ts";
import type { PlayerLink } from "../../../server/core/player_link.ts";
import { aloneStatus } from "../../../server/rigs/mod.ts";
import type { EditApplyResult } from "../../../protocol/edits/apply.ts";
import { RpcError } from "../../../protocol/jsonrpc.ts";

Deno.test({
  ...LOOPBACK_ETCD_TEST,
  name:
    "replicateEdits: refused when cut off, answered once applied from the log, refusals as made",
  fn: async () => {
    await withLoopbackEtcd(async ({ etcd }) => {
      const keys = groupKeys("show");
      const dataDir = await Deno.makeTempDir();
      const backupDir = await Deno.makeTempDir();
      let canEdit = false;
      const group = {
        etcd,
        keys,
        status: () => ({
          ...aloneStatus({ rigName: "main" }),
          group: "show",
          canEdit,
          reason: canEdit ? null : "Edits are not possible: joining the group",
        }),
      };
      const seeds: string[] = [];
      let log: ReplicatedEdits | null = null;
      const runner: ReplicatedRunner = {
        replicateTo: (to) => log = to,
        applyLogged: (entry, seed) => {
          seeds.push(seed);
          const title = (entry.edits[0]!.params as { title: string }).title;
          if (title === "bad") return Promise.resolve({ refusal: new RpcError(-32000, "refused") });
          const result: EditApplyResult = {
            projectId: entry.projectId!,
            revision: seeds.length,
            edits: [{ name: "song.add", message: `Song "${title}" added ${seed}` }],
            changed: { clips: [], songs: [], fields: [], presets: [] },
            history: { undo: 0, redo: 0 },
          };
          return Promise.resolve({ result });
        },
      };
      const stop = await replicateEdits(group, runner, { dataDir, log: () => {} });
      try {
        assert.notEqual(log, null);
        const batch = (title: string) => ({
          projectId: "show",
          edits: [{ name: "song.add", params: { title } }],
        });
        await assert.rejects(
          log!.commit(batch("cut off")),
          (e) => e instanceof CueportError && e.code === "GROUP_NO_QUORUM",
        );
        assert.deepEqual((await etcd.range(keys.log, { prefix: true })).kvs, []);
        canEdit = true;
        await campaign(etcd, `${keys.election}main`, await etcd.grant(30));
        const result = await log!.commit(batch("one"));
        const [kv] = (await etcd.range(keys.log, { prefix: true })).kvs;
        assert.equal(result.edits[0]!.message, `Song "one" added r${kv!.modRevision}`);
        await assert.rejects(log!.commit(batch("bad")), (e) => e instanceof RpcError);
        assert.equal(seeds.length, 2);

        // A keyed edit retried on another rig (its answer lost on the first): the first outcome,
        // committed once; the same key for another edit is refused.
        const backupSeeds: string[] = [];
        const backup = new ReplicatedEdits({
          group: { ...group, status: () => ({ ...group.status(), rig: "backup" }) },
          target: {
            applyLogged: (entry, seed) => (backupSeeds.push(seed), runner.applyLogged(entry, seed)),
          },
          dataDir: backupDir,
          log: () => {},
        });
        await backup.start();
        try {
          const keyed = { key: "phone/k1", fingerprint: "f1" };
          const first = await log!.commit(batch("keyed"), keyed);
          const retried = await backup.commit(batch("keyed"), keyed);
          assert.deepEqual(retried.edits, first.edits, "the first entry's outcome, on this rig");
          const titles = (await etcd.range(keys.log, { prefix: true })).kvs
            .map((kv) => JSON.parse(kv.value).edits[0].params.title);
          assert.deepEqual(
            titles.filter((t: string) => t === "keyed"),
            ["keyed"],
            "committed once",
          );
          await assert.rejects(
            backup.commit(batch("other"), { ...keyed, fingerprint: "f2" }),
            (e) => e instanceof CueportError && e.code === "IDEMPOTENCY_KEY_REUSED",
          );
        } finally {
          await backup.stop();
        }
      } finally {
        await stop();
        assert.equal(log, null, "alone again");
        await Deno.remove(dataDir, { recursive: true });
        await Deno.remove(backupDir, { recursive: true });
      }
    });
  },
});

Deno.test("EditRunner in a group: a keyed edit hands the log its client key and body's hash", async () => {
  const handed: unknown[] = [];
  const link = {
    requireReady: () => {},
    model: { project: () => ({}), library: [], activeProjectId: "show" },
    player: {},
  } as unknown as PlayerLink;
  const body = { projectID: "show", name: "song.add", params: { title: "keyed" } };
  // Two rigs' runners: the client's retry on the second carries the same key and hash.
  for (const rig of ["main", "backup"]) {
    const runner = new EditRunner(link, new IdempotencyStore());
    runner.replicateTo({
      commit: (batch, keyed) => {
        handed.push({ rig, batch, keyed });
        return Promise.reject(new CueportError("GROUP_NO_QUORUM", "stand-in"));
      },
    });
    await assert.rejects(
      runner.run(body, { isLocal: true, retry: { client: "phone", key: "k1" } }),
    );
    await assert.rejects(runner.run(body, { isLocal: true }));
  }
  const keys = handed.map((h) => (h as { keyed?: { key: string; fingerprint: string } }).keyed);
  assert.equal(keys[0]?.key, "phone/k1");
  assert.match(keys[0]!.fingerprint, /^[0-9a-f]{64}$/);
  assert.deepEqual(keys, [keys[0], undefined, keys[0], undefined]);
});
