/**
 * A file another rig announces that this rig's own Project holds already (server/rigs/
 * media_copies.ts, `ProjectFiles` of media_files.ts), with one real etcd member on the loopback
 * and two rigs' media in process: the demo's files, byte for byte alike on both rigs, offered by
 * rig a, are not fetched by rig b (no request to a's route) but hard-linked from b's Project into
 * its group media (one inode) and announced; a file of the same size but other bytes is not taken
 * for it; a file b does not hold is fetched as before.
 */
import assert from "node:assert/strict";
import {
  LOOPBACK_ETCD_TEST,
  member,
  withLoopbackEtcd,
} from "../../../tools/testing/loopback_rigs.ts";
import { untilProgress } from "../../../tools/testing/until.ts";
import { groupKeys } from "../../../server/rigs/keys.ts";
import { aloneStatus } from "../../../server/rigs/mod.ts";
import { RigMedia } from "../../../server/rigs/media_copies.ts";
import { hashFile } from "../../../server/rigs/media_files.ts";
import { serveMedia } from "../../../server/rigs/media_route.ts";

/** Writes `bytes` at `path` (its folder made). */
async function write(path: string, bytes: Uint8Array): Promise<void> {
  await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  await Deno.writeFile(path, bytes);
}

/** Rig a puts its Project file at `path` into its group media and announces it: its hash. */
async function offer(a: RigMedia, path: string): Promise<string> {
  const { sha256, size } = await hashFile(path);
  const mtime = (await Deno.stat(path)).mtime?.getTime() ?? 0;
  await a.store.adopt(path, { sha256, size, mtime });
  await a.announce(sha256, size);
  return sha256;
}

Deno.test({
  ...LOOPBACK_ETCD_TEST,
  name: "RigMedia: a file the rig's own Project holds is linked into its group media, not fetched",
  fn: async () => {
    await withLoopbackEtcd(async ({ etcd, dir: root }) => {
      const keys = groupKeys("show");
      const ports = new Map<string, number>();
      const requested: string[] = [];
      const rig = (name: string) =>
        new RigMedia({
          group: {
            etcd,
            keys,
            status: () => ({
              ...aloneStatus({ rigName: name }),
              group: "show",
              members: ["a", "b"].map((n) => member(n, ports.get(n) ?? 9, name)),
            }),
          },
          dataDir: `${root}/${name}`,
          log: () => {},
          fetch: (input, init) => {
            requested.push(String(input));
            return fetch(input, init);
          },
          retry: { firstMs: 20, maxMs: 200 },
        });
      const [a, b] = [rig("a"), rig("b")];
      const server = Deno.serve(
        { hostname: "127.0.0.1", port: 0, onListen: () => {} },
        (r) => serveMedia(a, r),
      );
      ports.set("a", server.addr.port);
      try {
        const demo = crypto.getRandomValues(new Uint8Array(40_000)); // generated alike on each rig
        const decoy = crypto.getRandomValues(new Uint8Array(40_000)); // same size, other bytes
        const own = crypto.getRandomValues(new Uint8Array(30_000)); // only on a
        await write(`${root}/a/projects/demo/media/song1.png`, demo);
        await write(`${root}/a/projects/demo/media/song2.wav`, own);
        await write(`${root}/b/projects/aaa/media/decoy.png`, decoy);
        await write(`${root}/b/projects/demo/media/song1.png`, demo);
        const shared = await offer(a, `${root}/a/projects/demo/media/song1.png`);
        const lacking = await offer(a, `${root}/a/projects/demo/media/song2.wav`);

        await Promise.all([a.start(), b.start()]);
        await untilProgress("b holds both files", async () => {
          return await b.store.size(shared) !== null && await b.store.size(lacking) !== null;
        }, { progress: () => requested.length, noProgressMs: 60_000 });

        assert.deepEqual(
          requested.map((url) => url.slice(url.lastIndexOf("/") + 1)),
          [lacking],
          "only the file b lacks is fetched",
        );
        const linked = await Deno.stat(b.store.path(shared));
        const project = await Deno.stat(`${root}/b/projects/demo/media/song1.png`);
        assert.equal(linked.ino, project.ino, "one file: the Project's, linked into group-media/");
        assert.equal((await hashFile(b.store.path(shared))).sha256, shared);
        assert.equal((await b.holders(shared)).get("b"), demo.length, "b announces it");
      } finally {
        await Promise.all([a.stop(), b.stop()]);
        await server.shutdown();
      }
    });
  },
});
