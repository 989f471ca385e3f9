/**
 * An import's file probed before it is copied (docs/rigs.md, "Media between rigs"; issue 46) with
 * real rigs: a real etcd of three members and two rigs, each in a network namespace
 * (`tools/testing/etcd_cluster.ts`). A file the importing rig's player refuses (junk, a corrupt
 * PNG, an upload of junk) is answered with the code a rig alone answers, and no rig's
 * `group-media/` holds it, nothing of it in etcd; a good file still lands on both rigs. As root
 * with etcd only; otherwise skipped with one line.
 */
import assert from "node:assert/strict";
import {
  clusterTestOptions,
  type Rig,
  untilSettled,
  uploadTo,
  waitFor,
  withTwoRigs,
} from "../../../tools/testing/etcd_cluster.ts";
import { mp4 } from "../../../tools/testing/media.ts";
import { hashFile } from "../../../server/rigs/media_files.ts";

const options = await clusterTestOptions("media_probe_test");

/** The error code of an answer's body. */
const codeOf = (body: unknown) => (body as { error?: { code?: string } }).error?.code;

/** Asserts that neither rig holds the file of `sha256` and that etcd knows nothing of it. */
async function nowhere(
  rigs: Rig[],
  range: (prefix: string) => Promise<Array<{ key: string }>>,
  sha256: string,
) {
  for (const rig of rigs) {
    const path = `${rig.dataDir}/group-media/${sha256}`;
    await assert.rejects(Deno.stat(path), Deno.errors.NotFound, `${rig.name} holds ${path}`);
  }
  assert.deepEqual(await range(`/cueport/probe/media/${sha256}/`), [], "no rig announced it");
}

Deno.test({
  name: "rig group: an import its player refuses is answered at once, copied nowhere",
  ...options,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "cueport-media-probe-" });
    try {
      // Every address, so that the other rig reaches the media route.
      await withTwoRigs("probe", { args: ["--host", "0.0.0.0"] }, async (cluster, a, b) => {
        await untilSettled(a, 2);
        await untilSettled(b, 2);
        const create = { name: "project.create", params: { name: "Show", projectID: "show" } };
        assert.equal((await a.post("/api/v1/edit", create)).status, 200);
        const range = (prefix: string) => cluster.range(prefix);
        const logged = async () => (await cluster.range("/cueport/probe/log/")).length;
        const entries = await logged();

        // Junk, and a PNG cut short: refused as alone (415, 400), nowhere, not in the log.
        await Deno.writeTextFile(`${dir}/junk.mp4`, "not a media file at all\n".repeat(100));
        const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);
        await Deno.writeFile(`${dir}/short.png`, new Uint8Array([...png, ...new Uint8Array(20)]));
        const refusals = [
          ["junk.mp4", 415, "UNSUPPORTED_MEDIA"],
          ["short.png", 400, "CORRUPT_MEDIA"],
        ] as const;
        for (const [name, status, code] of refusals) {
          const sha256 = (await hashFile(`${dir}/${name}`)).sha256;
          const refused = await a.post("/api/v1/edit", {
            projectID: "show",
            name: "file.import",
            params: { path: `${dir}/${name}` },
          });
          assert.deepEqual(
            [refused.status, codeOf(refused.body)],
            [status, code],
            JSON.stringify(refused.body),
          );
          await nowhere([a, b], range, sha256);
        }
        // An upload of junk on b: the same.
        const uploaded = await uploadTo(b, `${dir}/junk.mp4`, "junk.mp4");
        assert.deepEqual([uploaded.status, codeOf(uploaded.body)], [415, "UNSUPPORTED_MEDIA"]);
        await nowhere([a, b], range, (await hashFile(`${dir}/junk.mp4`)).sha256);
        assert.equal(await logged(), entries, "no refused import in the group's log");

        // A good file goes on as before: on both rigs by hash, in both Projects.
        await Deno.writeFile(`${dir}/good.mp4`, mp4("isom", 1000, 3000, 64, 48));
        const good = (await hashFile(`${dir}/good.mp4`)).sha256;
        const imported = await a.post("/api/v1/edit", {
          projectID: "show",
          name: "file.import",
          params: { path: `${dir}/good.mp4` },
        });
        assert.equal(imported.status, 200, JSON.stringify(imported.body));
        for (const rig of [a, b]) {
          const held = `${rig.dataDir}/group-media/${good}`;
          assert.equal((await hashFile(held)).sha256, good, `${rig.name} holds it`);
        }
        type Files = { files?: { name: string }[] } | null;
        const files = await waitFor(
          "b imports it",
          async () => ((await b.get("/api/v1/projects/show")) as Files)?.files ?? [],
          (f) => f.length === 1,
        );
        assert.equal(files[0]!.name, "good.mp4");
      });
    } finally {
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
