/**
 * The show replicated (docs/rigs.md): two rigs of a group on a real etcd of
 * three members, each in a network namespace (`tools/testing/etcd_cluster.ts`).
 * An edit on either rig is on both, read back from each rig's HTTP, with the
 * same ids; 200 edits sent to both rigs at once end with the same Project on
 * both, none lost, none twice; a rig stopped while edits are made catches up
 * when it starts again; a rig cut off refuses edits (GROUP_NO_QUORUM), keeps its
 * show, and after healing holds the majority's edits. As root with etcd only;
 * otherwise skipped with one line.
 */
import assert from "node:assert/strict";
import {
  clusterTestOptions,
  type Rig,
  waitFor,
  withTwoRigs,
} from "../../../tools/testing/etcd_cluster.ts";
import type { GroupStatus } from "../../../protocol/rigs.ts";

const options = await clusterTestOptions("replication_test");

type Song = { songID: string; title: string };
type ProjectView = Record<string, unknown> & { songs?: Song[] };

/** An edit sent to `rig`: the answer's status and body. */
function edit(rig: Rig, name: string, params: Record<string, unknown>) {
  return rig.post("/api/v1/edit", { projectID: "show", name, params });
}

/** The Project `show` as `rig` answers it (null while it has none). */
async function showOf(rig: Rig): Promise<ProjectView | null> {
  const body = await rig.get("/api/v1/projects/show") as ProjectView | null;
  return body && Array.isArray(body.songs) ? body : null;
}

/** Waits until both rigs answer the same Project `show` with `songs` Songs; that Project. */
async function sameOnBoth(a: Rig, b: Rig, songs: number): Promise<ProjectView> {
  const has = (p: ProjectView | null) => (p?.songs?.length ?? -1) === songs;
  const [pa, pb] = [
    await waitFor(`${a.name}: ${songs} songs`, () => showOf(a), has),
    await waitFor(`${b.name}: ${songs} songs`, () => showOf(b), has),
  ];
  assert.deepEqual(pb, pa, "the same Project on both rigs");
  return pa!;
}

const canEdit = (rig: Rig) =>
  waitFor(
    `${rig.name} can edit`,
    () => rig.get("/api/v1/group") as Promise<GroupStatus | null>,
    (s) => s !== null && s.canEdit && s.leader !== null && s.members.length === 2,
  );

Deno.test({
  name: "rig group: every edit through etcd's log, the same on both rigs; catch-up; a partition",
  ...options,
  fn: () =>
    withTwoRigs("show", {}, async (cluster, rigA, rigB) => {
      let [a, b] = [rigA, rigB];
      await canEdit(a);
      await canEdit(b);

      // An edit on either rig is on both, with the same ids.
      const create = { name: "project.create", params: { name: "Show", projectID: "show" } };
      const made = await a.post("/api/v1/edit", create);
      assert.equal(made.status, 200, JSON.stringify(made.body));
      await waitFor("rig-b has the Project", () => showOf(b), (p) => p !== null);
      const added = await edit(b, "song.add", { title: "from b" });
      assert.equal(added.status, 200, JSON.stringify(added.body));
      const { songID } = (added.body.edits as { created: { songID: string } }[])[0]!.created;
      const first = await sameOnBoth(a, b, 1);
      assert.equal(first.songs![0]!.songID, songID);

      // 200 edits, two at a time, one to each rig: none lost, none twice, the same on both.
      const began = performance.now();
      for (let i = 0; i < 200; i += 2) {
        const answers = await Promise.all([
          edit(a, "song.add", { title: `s${i}` }),
          edit(b, "song.add", { title: `s${i + 1}` }),
        ]);
        for (const answer of answers) assert.equal(answer.status, 200, JSON.stringify(answer.body));
      }
      const took = performance.now() - began;
      const all = await sameOnBoth(a, b, 201);
      const titles = all.songs!.map((s) => s.title).filter((t) => t !== "from b").sort();
      assert.deepEqual(titles, Array.from({ length: 200 }, (_, i) => `s${i}`).sort());
      console.log(`rigs: 200 edits, two at a time on two rigs, in ${Math.round(took)} ms`);

      // The leading rig killed (kill -9) while edits are made on the other: every edit is
      // acknowledged (the fence holds while the dead leader's key lives, then moves to the new
      // leader's); started again on its data dir, the rig catches up.
      const { leader } = await canEdit(a) as GroupStatus;
      const [gone, stays] = leader === "rig-a" ? [a, b] : [b, a];
      for (let i = 0; i < 30; i++) {
        const answer = await edit(stays, "song.add", { title: `while away ${i}` });
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        if (i === 5) await cluster.stopRig(gone);
      }
      const back = await cluster.startRig(gone.name, "show", { host: gone, dataDir: gone.dataDir });
      [a, b] = gone === a ? [back, b] : [a, back];
      const caughtUp = await sameOnBoth(a, b, 231);
      const away = caughtUp.songs!.filter((s) => s.title.startsWith("while away"));
      assert.equal(away.length, 30, "each acknowledged edit once");

      // A partition: the rig cut off refuses edits and keeps its show; healed, it holds the
      // majority's edits.
      await canEdit(b);
      await cluster.linkDown(b);
      await waitFor(
        "rig-b cut off",
        () => b.get("/api/v1/group") as Promise<GroupStatus | null>,
        (s) => s !== null && !s.canEdit,
      );
      const refused = await edit(b, "song.add", { title: "cut off" });
      assert.equal(refused.status, 503, JSON.stringify(refused.body));
      assert.equal(
        (refused.body.error as { code?: string })?.code ?? refused.body.code,
        "GROUP_NO_QUORUM",
      );
      assert.equal((await showOf(b))?.songs?.length, 231, "the cut-off rig keeps its show");
      await canEditAlone(a);
      for (let i = 0; i < 5; i++) {
        const answer = await edit(a, "song.add", { title: `majority ${i}` });
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
      }
      await cluster.linkUp(b);
      const healed = await sameOnBoth(a, b, 236);
      assert.equal(healed.songs!.some((s) => s.title === "cut off"), false);
    }),
});

/** Waits until `rig` can edit (its side keeps the quorum), whoever else it sees. */
function canEditAlone(rig: Rig) {
  return waitFor(
    `${rig.name} can edit`,
    () => rig.get("/api/v1/group") as Promise<GroupStatus | null>,
    (s) => s !== null && s.canEdit && s.leader !== null,
  );
}
