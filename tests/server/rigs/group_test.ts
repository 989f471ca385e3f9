/**
 * Two rigs of a group on a real etcd of three members, each rig and member in
 * a network namespace of its own (`tools/testing/etcd_cluster.ts`): they
 * join and agree on one leader; a member of etcd dies and they go on (the
 * client moves to the next member); a rig cut off from the quorum says edits
 * are not possible, and can again once the partition heals; the leader's
 * service killed, the other leads (the time it took is printed, not asserted).
 * As root with etcd only; otherwise skipped with one line.
 */
import assert from "node:assert/strict";
import {
  clusterTestOptions,
  waitForStatus as waitFor,
  withTwoRigs,
} from "../../../tools/testing/etcd_cluster.ts";
import type { GroupHealth, GroupStatus } from "../../../protocol/rigs.ts";

const options = await clusterTestOptions("group_test");

Deno.test({
  name: "rig group: join, agree on a leader, survive an etcd member, a partition and the leader",
  ...options,
  fn: () =>
    withTwoRigs("show", {}, async (cluster, a, b) => {
      // Both list both, and agree on one leader.
      const both = (s: GroupStatus) => s.members.length === 2 && s.canEdit && s.leader !== null;
      const [sa, sb] = [await waitFor(a, "both members", both), await waitFor(b, "both", both)];
      assert.deepEqual(sa.members.map((m) => m.name), ["rig-a", "rig-b"]);
      assert.equal(sa.leader, sb.leader);
      assert.equal(sa.isLeader !== sb.isLeader, true, "exactly one leads");
      const health = await a.get("/health") as { group?: GroupHealth };
      assert.deepEqual(health.group?.members, ["rig-a", "rig-b"]);
      const cli = await a.cli(["group", "status"]);
      assert.equal(cli.code, 0, cli.stdout);
      assert.match(cli.stdout, /^Group show: this rig rig-a.*; edits possible\n/);
      assert.match(cli.stdout, /\n {2}rig-b(, leader)?: 10\.46\.0\.\d+, HTTP \d+, /);

      // The member a rig talks to dies: it moves to the next and goes on.
      const talkedTo = sa.endpoint!;
      const member = `e${cluster.endpoints.indexOf(talkedTo) + 1}`;
      await cluster.killMember(member);
      const moved = await waitFor(a, "another member", (s) => s.endpoint !== talkedTo);
      const beat = (s: GroupStatus) =>
        s.canEdit && s.members.length === 2 &&
        s.members.every((m) => m.lastSeenMs === null || m.lastSeenMs < 5_000);
      // (The leader is not asserted to stay: a rig stalled past its lease by a busy machine
      // campaigns again, legitimately behind the other.)
      await waitFor(a, "beating on", beat);
      await waitFor(b, "beating on", beat);
      console.log(`rigs: etcd member ${member} killed; rig-a moved to ${moved.endpoint}`);

      // The follower cut off: it knows edits are not possible; healed, they are again.
      const { leader: leading } = await waitFor(a, "a leader", (s) => s.leader !== null);
      const [leader, follower] = leading === "rig-a" ? [a, b] : [b, a];
      await cluster.linkDown(follower);
      const cut = await waitFor(follower, "edits not possible", (s) => !s.canEdit);
      assert.match(cut.reason ?? "", /Edits are not possible/);
      assert.equal(cut.isLeader, false);
      await waitFor(leader, "its side keeps the quorum", (s) => s.canEdit);
      await cluster.linkUp(follower);
      await waitFor(follower, "edits possible again", (s) => s.canEdit && s.members.length === 2);

      // The leader's service killed (kill -9, its link down): the other leads.
      const killedAt = performance.now();
      await cluster.killRig(leader);
      const took = await waitFor(follower, "leads", (s) => s.isLeader).then(() =>
        performance.now() - killedAt
      );
      console.log(`rigs: the leader killed; ${follower.name} leads ${Math.round(took)} ms after`);
      const after = await waitFor(follower, "alone in the group", (s) => s.members.length === 1);
      assert.equal(after.leader, follower.name);
    }),
});
