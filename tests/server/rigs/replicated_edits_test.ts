/**
 * `replicateEdits` (server/rigs/replicated_edits.ts) with one real etcd member
 * on the loopback and a stand-in for the rig's group and player: a rig that
 * cannot edit refuses before etcd is written; an edit is answered with what
 * this rig's player made of it, applied from the log with its seed; a refusal
 * is answered as the player made it; stopped, the runner is alone again.
 */
import assert from "node:assert/strict";
import { startLoopbackEtcd } from "../../_helpers/etcd_cluster.ts";
import { needs } from "../../_helpers/peers.ts";
import { campaign } from "../../../server/rigs/election.ts";
import { GatewayEtcd } from "../../../server/rigs/etcd_gateway.ts";
import { groupKeys } from "../../../server/rigs/keys.ts";
import {
  type ReplicatedEdits,
  type ReplicatedRunner,
  replicateEdits,
} from "../../../server/rigs/replicated_edits.ts";
import { CueportError } from "../../../server/core/errors.ts";
import { aloneStatus } from "../../../server/rigs/mod.ts";
import type { EditApplyResult } from "../../../protocol/edits/apply.ts";
import { RpcError } from "../../../protocol/jsonrpc.ts";

Deno.test({
  ...needs("etcd"),
  sanitizeResources: false,
  sanitizeOps: false,
  name:
    "replicateEdits: refused when cut off, answered once applied from the log, refusals as made",
  fn: async () => {
    const solo = await startLoopbackEtcd();
    const etcd = new GatewayEtcd([solo.url], { timeoutMs: 2000 });
    const keys = groupKeys("show");
    const dataDir = await Deno.makeTempDir();
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
    } finally {
      await stop();
      assert.equal(log, null, "alone again");
      await solo.stop();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
