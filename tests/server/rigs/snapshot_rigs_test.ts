/**
 * Snapshots on real rigs (docs/rigs.md, "Snapshots and a bounded log"): two rigs of a group on a
 * real etcd of three members (`tests/_helpers/etcd_cluster.ts`), a snapshot every 10 entries
 * (`--group-snapshot-entries`). With one rig stopped, the leader's edits are snapshotted through
 * its player (`projects.capture`) and the log trimmed behind them; the rig started again past the
 * trim takes the snapshot (`projects.replace`) and the entries after it, and holds Projects
 * deep-equal to the leader's, and the file imported while it was away in its Project's folder
 * with the leader's hash (copied from the leader by hash as it took the snapshot). As root with
 * etcd only; otherwise skipped with one line.
 */
import assert from "node:assert/strict";
import { clusterUnavailable, EtcdCluster, type Rig, waitFor } from "../../_helpers/etcd_cluster.ts";
import { needs } from "../../_helpers/peers.ts";
import { untilProgress } from "../../_helpers/until.ts";
import { mp4 } from "../../_helpers/media.ts";
import { hashFile } from "../../../server/rigs/media_files.ts";
import type { GroupStatus } from "../../../protocol/rigs.ts";

const unavailable = await clusterUnavailable();
if (unavailable !== null) console.error(`rigs snapshot_rigs_test skipped: ${unavailable}`);

// Every address: the rig back reaches the leader's media route.
const ARGS = ["--group-snapshot-entries", "10", "--host", "0.0.0.0"];

const status = (rig: Rig) => rig.get("/api/v1/group") as Promise<GroupStatus | null>;
const canEdit = (rig: Rig) =>
  waitFor(`${rig.name} can edit`, () => status(rig), (s) => s !== null && s.canEdit && !!s.leader);

/** The Projects `rig` answers, by id (null fields while it has none). */
async function projectsOf(rig: Rig, ids: string[]) {
  return await Promise.all(ids.map((id) => rig.get(`/api/v1/projects/${id}`)));
}

Deno.test({
  name:
    "rig group: the leader snapshots through its player and trims the log; a rig away past it comes back equal",
  ignore: unavailable !== null && (!unavailable.includes("installed") || needs("etcd").ignore),
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const cluster = await EtcdCluster.start();
    const dir = await Deno.makeTempDir({ prefix: "cueport-snapshot-rigs-" });
    try {
      const [a, b] = await Promise.all([
        cluster.startRig("rig-a", "show", { args: ARGS }),
        cluster.startRig("rig-b", "show", { args: ARGS }),
      ]) as [Rig, Rig];
      await canEdit(a);
      await canEdit(b);
      const made = await a.post("/api/v1/edit", {
        name: "project.create",
        params: { name: "Show", projectID: "show" },
      });
      assert.equal(made.status, 200, JSON.stringify(made.body));
      await waitFor("rig-b has the Project", () => b.get("/api/v1/projects/show"), (p) => !!p);

      const leader = (await canEdit(a))!.leader;
      const [stays, gone] = leader === "rig-a" ? [a, b] : [b, a];
      await cluster.stopRig(gone);
      await Deno.writeFile(`${dir}/away.mp4`, mp4("isom", 1000, 3001, 64, 48));
      const away = (await hashFile(`${dir}/away.mp4`)).sha256;
      const bodies: Record<string, unknown>[] = [
        { name: "project.create", params: { name: "Second", projectID: "second" } },
        { projectID: "show", name: "file.import", params: { path: `${dir}/away.mp4` } },
      ];
      for (let i = 0; i < 24; i++) {
        bodies.push({ projectID: "show", name: "song.add", params: { title: `while away ${i}` } });
      }
      for (const body of bodies) {
        const answer = await stays.post("/api/v1/edit", body);
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
      }
      // Progress: the leader's log growing as it applies; none without snapshots.
      const trims = () => (stays.stderr().match(/log entries trimmed/g) ?? []).length;
      await untilProgress("the log trimmed twice", () => trims() >= 2, {
        progress: () => stays.stderr().length,
      });

      const back = await cluster.startRig(gone.name, "show", {
        host: gone,
        dataDir: gone.dataDir,
        args: ARGS,
      });
      const want = await projectsOf(stays, ["show", "second"]);
      assert.equal((want[0] as { songs: unknown[] }).songs.length, 24);
      await waitFor(
        "the rig back holds the leader's Projects",
        () => projectsOf(back, ["show", "second"]),
        (got) => JSON.stringify(got) === JSON.stringify(want),
      );
      assert.deepEqual(await projectsOf(back, ["show", "second"]), want);
      assert.match(back.stderr(), /took the snapshot at revision/);
      // The file imported while it was away, trimmed from the log: in its Project, same bytes.
      assert.deepEqual((want[0] as { files: { name: string }[] }).files.map((f) => f.name), [
        "away.mp4",
      ]);
      assert.equal((await hashFile(`${back.dataDir}/projects/show/media/away.mp4`)).sha256, away);
    } finally {
      await Deno.remove(dir, { recursive: true }).catch(() => {});
      const left = await cluster.remove();
      assert.deepEqual(left, [], "every namespace removed");
    }
  },
});
