/**
 * Media between rigs (docs/rigs.md, "Media between rigs") with real rigs: a
 * real etcd of three members and two rigs, each in a network namespace
 * (`tools/testing/etcd_cluster.ts`). A file imported on rig A is on rig B,
 * with the same hash, before A answers, and in B's Project; the media route
 * refuses a caller without the member token; an upload on B is on A by hash; a rig that was down during an
 * import refuses a copy whose bytes changed on its holder, stores nothing,
 * and takes the right bytes once they are back, then applies the import. As
 * root with etcd only; otherwise skipped with one line.
 */
import assert from "node:assert/strict";
import {
  clusterUnavailable,
  EtcdCluster,
  type Rig,
  untilSettled,
  uploadTo,
  waitFor,
} from "../../../tools/testing/etcd_cluster.ts";
import { needs } from "../../../tools/testing/peers.ts";
import { mp4 } from "../../../tools/testing/media.ts";
import { hashFile } from "../../../server/rigs/media_files.ts";
import type { GroupStatus } from "../../../protocol/rigs.ts";

const unavailable = await clusterUnavailable();
if (unavailable !== null) console.error(`rigs media_rigs_test skipped: ${unavailable}`);

type Files = { files?: { id: string; name: string; size: number }[] };

/** The media files of Project `show` on `rig`. */
async function filesOf(rig: Rig): Promise<{ id: string; name: string; size: number }[]> {
  return ((await rig.get("/api/v1/projects/show")) as Files | null)?.files ?? [];
}

/** GET `url` with curl inside namespace `ns`: the JSON answered, or null. */
async function getFrom(ns: string, url: string, headers: string[] = []) {
  const out = await new Deno.Command("ip", {
    args: ["netns", "exec", ns, "curl", "-s", "--max-time", "5", ...headers, url],
    stdout: "piped",
    stderr: "null",
  }).output();
  try {
    return JSON.parse(new TextDecoder().decode(out.stdout)) as { error?: { code?: string } };
  } catch {
    return null;
  }
}

/** A small video file of its own bytes (`seed` changes them) at `path`; its hash. */
async function video(path: string, seed: number): Promise<string> {
  const bytes = mp4("isom", 1000, 3000 + seed, 64, 48);
  await Deno.writeFile(path, bytes);
  return (await hashFile(path)).sha256;
}

Deno.test({
  name:
    "rig group: an import copied to every rig by hash; a rig back catches up, wrong bytes refused",
  ignore: unavailable !== null && (!unavailable.includes("installed") || needs("etcd").ignore),
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const cluster = await EtcdCluster.start();
    const dir = await Deno.makeTempDir({ prefix: "cueport-media-rigs-" });
    // Every address, so that the other rig reaches the media route.
    const args = ["--host", "0.0.0.0"];
    try {
      const [a, startedB] = await Promise.all([
        cluster.startRig("rig-a", "show", { args }),
        cluster.startRig("rig-b", "show", { args }),
      ]) as [Rig, Rig];
      let b = startedB;
      await untilSettled(a, 2);
      await untilSettled(b, 2);
      const create = { name: "project.create", params: { name: "Show", projectID: "show" } };
      assert.equal((await a.post("/api/v1/edit", create)).status, 200);

      // Imported on a: on b with the same hash when a answers, then in b's Project.
      const first = await video(`${dir}/first.mp4`, 1);
      const imported = await a.post("/api/v1/edit", {
        projectID: "show",
        name: "file.import",
        params: { path: `${dir}/first.mp4` },
      });
      assert.equal(imported.status, 200, JSON.stringify(imported.body));
      const onB = `${b.dataDir}/group-media/${first}`;
      assert.equal((await hashFile(onB)).sha256, first, "on b before a answered");
      const [file] = await waitFor("b imports it", () => filesOf(b), (f) => f.length === 1);
      assert.equal(file!.name, "first.mp4");
      assert.equal(file!.id, (await filesOf(a))[0]!.id, "the same id on every rig");
      const inProject = `${b.dataDir}/projects/show/media/first.mp4`;
      assert.equal((await hashFile(inProject)).sha256, first, "b's Project plays the same bytes");

      // The route: not for a caller without the member token, whatever it holds.
      const route = `http://${a.address}:${a.httpPort}/api/v1/group/media/${first}`;
      for (const headers of [[], ["-H", "authorization: Bearer guess"]]) {
        assert.equal((await getFrom(b.ns, route, headers))?.error?.code, "GROUP_MEMBERS_ONLY");
      }

      // An upload on b becomes an import: on a too, by hash.
      const uploaded = await video(`${dir}/upload.mp4`, 3);
      const answer = await uploadTo(b, `${dir}/upload.mp4`, "upload.mp4");
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      await waitFor("a has the upload", () => filesOf(a), (f) => f.length === 2);
      assert.equal((await hashFile(`${a.dataDir}/group-media/${uploaded}`)).sha256, uploaded);

      // b down during an import: a answers without it. Its holder's file then changes.
      await cluster.stopRig(b);
      await untilSettled(a, 1);
      const second = await video(`${dir}/second.mp4`, 2);
      const alone = await a.post("/api/v1/edit", {
        projectID: "show",
        name: "file.import",
        params: { path: `${dir}/second.mp4`, name: "second.mp4" },
      });
      assert.equal(alone.status, 200, JSON.stringify(alone.body));
      const held = `${a.dataDir}/group-media/${second}`;
      const good = await Deno.readFile(held);
      await Deno.writeFile(held, good.map((x) => x ^ 0x5a));
      b = await cluster.startRig(b.name, "show", { args, host: b, dataDir: b.dataDir });
      await waitFor(
        "b refuses the changed bytes",
        () => Promise.resolve(b.stderr()),
        (e) => e.includes("hash mismatch"),
      );
      assert.equal((await filesOf(b)).length, 2, "the import waits for its file");
      // b says what it waits for, and refuses edits meanwhile.
      const behind = await waitFor(
        "b reports the file it waits for",
        () => b.get("/api/v1/group") as Promise<GroupStatus | null>,
        (s) => s?.log?.waitingFor?.sha256 === second,
      );
      assert.ok(behind!.log!.applied < behind!.log!.head, JSON.stringify(behind!.log));
      const health = (await b.get("/health")) as { group?: GroupStatus } | null;
      assert.equal(health?.group?.log?.waitingFor?.sha256, second);
      const refused = await b.post("/api/v1/edit", {
        projectID: "show",
        name: "project.rename",
        params: { name: "Renamed" },
      });
      assert.equal(refused.status, 503, JSON.stringify(refused.body));
      assert.equal((refused.body as { error?: { code?: string } }).error?.code, "GROUP_BEHIND");
      await assert.rejects(Deno.stat(`${b.dataDir}/group-media/${second}`), Deno.errors.NotFound);
      // The right bytes back on a: b copies them and applies the import.
      await Deno.writeFile(held, good);
      await waitFor("b catches up", () => filesOf(b), (f) => f.length === 3);
      const copied = `${b.dataDir}/group-media/${second}`;
      assert.equal((await hashFile(copied)).sha256, second);
      const after = await waitFor(
        "b caught up with the log",
        () => b.get("/api/v1/group") as Promise<GroupStatus | null>,
        (s) => s?.log?.waitingFor === null,
      );
      assert.equal(after!.log!.applied, after!.log!.head);
    } finally {
      const problems = await cluster.remove();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
      assert.deepEqual(problems, []);
    }
  },
});
