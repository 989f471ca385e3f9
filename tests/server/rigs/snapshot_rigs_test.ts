/**
 * Snapshots on real rigs (docs/rigs.md, "Snapshots and a bounded log"): two rigs of a group on a
 * real etcd of three members (`tools/testing/etcd_cluster.ts`), a snapshot every 10 entries
 * (`--group-snapshot-entries`). With one rig stopped, the leader's edits are snapshotted through
 * its player (`projects.capture`) and the log trimmed behind them; the rig started again past the
 * trim takes the snapshot (`projects.replace`) and the entries after it, and holds Projects
 * deep-equal to the leader's, and the file imported while it was away in its Project's folder
 * with the leader's hash (copied from the leader by hash as it took the snapshot), as are the demo
 * Project's files it lost (no group import brought them: the leader offered them with its
 * snapshot). Each file is held once on disk: a Project's file and the rig's group-media file share
 * an inode. While the only holder is stopped too, the rig back shows the file its snapshot waits
 * for in `log.waitingFor`. As root with etcd only; otherwise skipped with one line.
 */
import assert from "node:assert/strict";
import {
  clusterUnavailable,
  EtcdCluster,
  type Rig,
  waitFor,
} from "../../../tools/testing/etcd_cluster.ts";
import { needs } from "../../../tools/testing/peers.ts";
import { untilProgress } from "../../../tools/testing/until.ts";
import { mp4 } from "../../../tools/testing/media.ts";
import { hashFile } from "../../../server/rigs/media_files.ts";
import type { GroupStatus } from "../../../protocol/rigs.ts";

type Files = { files: { name: string }[] };

/** The device and inode of `path`. */
async function inode(path: string): Promise<string> {
  const stat = await Deno.stat(path);
  return `${stat.dev}:${stat.ino}`;
}

/** Asserts that `rig`'s file `relative` of Project `id` is one file with its group-media `sha256`. */
async function heldOnce(rig: Rig, id: string, relative: string, sha256: string): Promise<void> {
  assert.equal(
    await inode(`${rig.dataDir}/projects/${id}/${relative}`),
    await inode(`${rig.dataDir}/group-media/${sha256}`),
    `${rig.name}'s ${id}/${relative} is a hard link to its group-media/${sha256}`,
  );
}

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
    "rig group: the leader snapshots through its player and trims the log; a rig away past it waits for the files shown, then comes back equal, each file once on disk",
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
      // An import on two rigs: on each, the Project's file and the group's are one file.
      await Deno.writeFile(`${dir}/both.mp4`, mp4("isom", 1000, 2001, 32, 24));
      const both = (await hashFile(`${dir}/both.mp4`)).sha256;
      const imported = await a.post("/api/v1/edit", {
        projectID: "show",
        name: "file.import",
        params: { path: `${dir}/both.mp4` },
      });
      assert.equal(imported.status, 200, JSON.stringify(imported.body));
      await waitFor(
        "rig-b has the imported file",
        () => b.get("/api/v1/projects/show") as Promise<Files | null>,
        (p) => (p?.files ?? []).some((f) => f.name === "both.mp4"),
      );
      for (const rig of [a, b]) await heldOnce(rig, "show", "media/both.mp4", both);

      const leader = (await canEdit(a))!.leader;
      const [stays, gone] = leader === "rig-a" ? [a, b] : [b, a];
      await cluster.stopRig(gone);
      // The demo's files (made by each rig, no group import) lost on the rig away.
      const demo = ((await stays.get("/api/v1/projects/demo")) as Files).files
        .map((f) => `media/${f.name}`);
      assert.ok(demo.length > 0, "the demo Project has files");
      const demoSha = new Map<string, string>();
      for (const path of demo) {
        demoSha.set(path, (await hashFile(`${stays.dataDir}/projects/demo/${path}`)).sha256);
        await Deno.remove(`${gone.dataDir}/projects/demo/${path}`);
      }
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

      assert.match(stays.stderr(), /media held once on disk/);
      const want = await projectsOf(stays, ["show", "second", "demo"]);
      assert.equal((want[0] as { songs: unknown[] }).songs.length, 24);

      // The only holder of the files stopped too: the rig back waits for one, and shows it.
      await cluster.stopRig(stays);
      const back = await cluster.startRig(gone.name, "show", {
        host: gone,
        dataDir: gone.dataDir,
        args: ARGS,
      });
      const needed = new Set([away, ...demoSha.values()]);
      const waited = await waitFor(
        "the rig back shows the file its snapshot waits for",
        () => status(back),
        (s) => needed.has(s?.log?.waitingFor?.sha256 ?? ""),
      );
      assert.ok(waited!.log!.waitingFor!.revision > waited!.log!.applied, JSON.stringify(waited));
      const again = await cluster.startRig(stays.name, "show", {
        host: stays,
        dataDir: stays.dataDir,
        args: ARGS,
      });
      await waitFor(
        "the rig back holds the leader's Projects",
        () => projectsOf(back, ["show", "second", "demo"]),
        (got) => JSON.stringify(got) === JSON.stringify(want),
      );
      assert.deepEqual(await projectsOf(back, ["show", "second", "demo"]), want);
      assert.match(back.stderr(), /took the snapshot at revision/);
      assert.equal((await status(back))?.log?.waitingFor, null);
      assert.equal((await status(again))?.log?.waitingFor, null);
      // The demo's files, which no group import brought: back, the leader's bytes, held once.
      for (const [path, sha256] of demoSha) {
        assert.equal((await hashFile(`${back.dataDir}/projects/demo/${path}`)).sha256, sha256);
        await heldOnce(back, "demo", path, sha256);
        await heldOnce(again, "demo", path, sha256);
      }
      await heldOnce(back, "show", "media/away.mp4", away);
      // The file imported while it was away, trimmed from the log: in its Project, same bytes.
      assert.deepEqual((want[0] as { files: { name: string }[] }).files.map((f) => f.name), [
        "both.mp4",
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
