/**
 * Media between rigs (server/rigs/media_copies.ts, media_imports.ts,
 * media_route.ts) with one real etcd member on the loopback and two rigs'
 * media in process, each serving its route on a loopback port: the route
 * refuses a caller without the member token and serves a range to one with
 * it; an import waits until the other rig holds the file, then names it by
 * hash; a holder whose file changed is refused and nothing is stored, then
 * the right bytes are taken; a live rig that never gets the file makes the
 * import fail with GROUP_MEDIA_NOT_COPIED naming it.
 */
import assert from "node:assert/strict";
import {
  LOOPBACK_ETCD_TEST,
  member,
  withLoopbackEtcd,
} from "../../../tools/testing/loopback_rigs.ts";
import { groupKeys } from "../../../server/rigs/keys.ts";
import { aloneStatus } from "../../../server/rigs/mod.ts";
import { RigMedia } from "../../../server/rigs/media_copies.ts";
import { hashFile, mediaRef } from "../../../server/rigs/media_files.ts";
import { localizeImports, shareImports } from "../../../server/rigs/media_imports.ts";
import { serveMedia } from "../../../server/rigs/media_route.ts";
import { CueportError } from "../../../server/core/errors.ts";
import { untilProgress } from "../../../tools/testing/until.ts";

/** `n` random bytes. */
function randomBytes(n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let at = 0; at < n; at += 65536) crypto.getRandomValues(out.subarray(at, at + 65536));
  return out;
}

Deno.test({
  ...LOOPBACK_ETCD_TEST,
  name: "RigMedia: members only, copies checked by hash, an import waits for every live rig",
  fn: async () => {
    await withLoopbackEtcd(async ({ etcd, dir: root }) => {
      const keys = groupKeys("show");
      const ports = new Map<string, number>();
      let others: string[] = [];
      const rig = (name: string) => {
        const members = () => ["a", "b", ...others].map((n) => member(n, ports.get(n) ?? 9, name));
        const status = () => ({
          ...aloneStatus({ rigName: name }),
          group: "show",
          members: members(),
        });
        return new RigMedia({
          group: { etcd, keys, status },
          dataDir: `${root}/${name}`,
          log: () => {},
        });
      };
      const [a, b] = [rig("a"), rig("b")];
      const servers = [a, b].map((media) =>
        Deno.serve(
          { hostname: "127.0.0.1", port: 0, onListen: () => {} },
          (r) => serveMedia(media, r),
        )
      );
      ports.set("a", servers[0]!.addr.port).set("b", servers[1]!.addr.port);
      await Promise.all([a.start(), b.start()]);
      try {
        // The route: no token, a wrong one: refused with the stable code.
        const url = (sha: string) => `http://127.0.0.1:${ports.get("a")}/api/v1/group/media/${sha}`;
        for (const headers of [{}, { authorization: "Bearer nope" }]) {
          const refused = await fetch(url("0".repeat(64)), { headers });
          assert.equal(refused.status, 401);
          assert.equal((await refused.json()).error.code, "GROUP_MEMBERS_ONLY");
        }

        // An import on rig a: the batch commits only once rig b holds the same bytes.
        const source = `${root}/clip.bin`;
        const bytes = randomBytes(3 * 1024 * 1024 + 17); // more than one chunk of the route
        await Deno.writeFile(source, bytes);
        const { sha256 } = await hashFile(source);
        const batch = {
          projectId: "p",
          edits: [{ name: "file.import", params: { path: source } }],
        };
        const shared = await shareImports(a, batch);
        assert.deepEqual(shared.edits[0]!.params, { path: mediaRef(sha256), name: "clip.bin" });
        assert.equal(
          (await hashFile(b.store.path(sha256))).sha256,
          sha256,
          "on b before a answers",
        );
        const entry = { id: "x", rig: "a", ...shared };
        const local = await localizeImports(b, entry);
        assert.equal((local.edits[0]!.params as { path: string }).path, b.store.path(sha256));

        // A range, with the token.
        const part = await fetch(url(sha256), {
          headers: { authorization: `Bearer ${await a.token()}`, range: "bytes=10-19" },
        });
        assert.equal(part.status, 206);
        assert.equal(part.headers.get("content-range"), `bytes 10-19/${bytes.length}`);
        assert.deepEqual(new Uint8Array(await part.arrayBuffer()), bytes.subarray(10, 20));

        // A holder whose file changed: b refuses it and stores nothing; right again, b takes it.
        const other = `${root}/other.bin`;
        await Deno.writeFile(other, randomBytes(100_000));
        const second = await a.store.receive((await Deno.open(other)).readable, { sha256: null });
        const held = a.store.path(second.sha256);
        const good = await Deno.readFile(held);
        await Deno.writeFile(held, good.map((x) => x ^ 1));
        await a.announce(second.sha256, second.size);
        await assert.rejects(b.ensure(second.sha256), /hash mismatch/);
        assert.equal(await b.store.size(second.sha256), null, "a wrong copy is never stored");
        await Deno.writeFile(held, good);
        let tries = 0;
        await untilProgress("b copies the right bytes", async () => {
          tries++;
          return await b.ensure(second.sha256).then(() => true, () => false);
        }, { progress: () => tries, noProgressMs: 60_000 });
        assert.equal((await hashFile(b.store.path(second.sha256))).sha256, second.sha256);

        // A live rig that never gets the file: the import fails, naming it.
        others = ["c"];
        await assert.rejects(
          shareImports(a, batch, { deadlineMs: () => 300 }),
          (e) =>
            e instanceof CueportError && e.code === "GROUP_MEDIA_NOT_COPIED" &&
            /did not reach c within/.test(e.message),
        );
      } finally {
        await Promise.all([a.stop(), b.stop()]);
        await Promise.all(servers.map((s) => s.shutdown()));
      }
    });
  },
});

Deno.test({
  ...LOOPBACK_ETCD_TEST,
  name:
    "RigMedia: a failed copy is tried again; stale records withdrawn; a full disk fails the import",
  fn: async () => {
    await withLoopbackEtcd(async ({ etcd, dir: root }) => {
      const keys = groupKeys("show");
      const ports = new Map<string, number>();
      let bSees = ["b"]; // b starts before it has read the other members' records
      const rig = (name: string) =>
        new RigMedia({
          group: {
            etcd,
            keys,
            status: () => ({
              ...aloneStatus({ rigName: name }),
              group: "show",
              members: (name === "b" ? bSees : ["a", "b"]).map((n) =>
                member(n, ports.get(n) ?? 9, name)
              ),
            }),
          },
          dataDir: `${root}/${name}`,
          log: () => {},
          retry: { firstMs: 20, maxMs: 200 },
        });
      const [a, b] = [rig("a"), rig("b")];
      const server = Deno.serve(
        { hostname: "127.0.0.1", port: 0, onListen: () => {} },
        (r) => serveMedia(a, r),
      );
      ports.set("a", server.addr.port);
      try {
        // A record b left of a file it no longer holds: withdrawn when b starts.
        const stale = `${keys.root}media/${"e".repeat(64)}/b`;
        await etcd.put(stale, JSON.stringify({ size: 3 }));
        const source = `${root}/clip.bin`;
        await Deno.writeFile(source, randomBytes(50_000));
        const held = await a.store.receive((await Deno.open(source)).readable, { sha256: null });
        await a.announce(held.sha256, held.size);
        await Promise.all([a.start(), b.start()]);
        await untilProgress("b withdraws its stale record", async () => {
          return (await etcd.range(stale)).kvs.length === 0;
        }, { progress: () => 0, noProgressMs: 60_000 });
        // b's first copy fails (no live holder known yet); it is tried again, unasked, once a is.
        assert.equal(await b.store.size(held.sha256), null);
        bSees = ["a", "b"];
        await untilProgress("b copies it on a later try", async () => {
          return await b.store.size(held.sha256) === held.size;
        }, { progress: () => 0, noProgressMs: 60_000 });

        // A rig that recorded a full disk fails the import at once, naming it.
        bSees = ["b"]; // b does not copy what follows
        const other = `${root}/other.bin`;
        await Deno.writeFile(other, randomBytes(1000));
        const { sha256 } = await hashFile(other);
        const bKey = `${keys.root}media/${sha256}/b`;
        await etcd.put(bKey, JSON.stringify({ error: "DISK_FULL" }));
        const batch = { projectId: "p", edits: [{ name: "file.import", params: { path: other } }] };
        await assert.rejects(
          shareImports(a, batch, { deadlineMs: () => 60_000 }),
          (e) => e instanceof CueportError && e.code === "DISK_FULL" && /Rig b/.test(e.message),
        );
        assert.equal(await a.store.size(sha256), null, "a failed import leaves no file");
        assert.deepEqual([...(await a.holders(sha256)).keys()], [], "nor a's record");
        // A rig stopped mid-copy: its temp file goes.
        let sent = false;
        const stalling = ((_url: string, init: RequestInit) =>
          Promise.resolve(
            new Response(
              new ReadableStream<Uint8Array>({
                pull(controller) {
                  if (!sent) {
                    sent = true;
                    return controller.enqueue(new Uint8Array(1000));
                  }
                  return new Promise((_, reject) =>
                    init.signal!.addEventListener("abort", () => reject(init.signal!.reason))
                  );
                },
              }),
            ),
          )) as typeof fetch;
        const c = new RigMedia({
          group: {
            etcd,
            keys,
            status: () => ({
              ...aloneStatus({ rigName: "c" }),
              group: "show",
              members: [member("a", ports.get("a")!, "c")],
            }),
          },
          dataDir: `${root}/c`,
          log: () => {},
          fetch: stalling,
        });
        const copying = c.ensure(held.sha256).catch((error) => error);
        const temps = () => {
          try {
            return [...Deno.readDirSync(c.store.dir)].map((e) => e.name);
          } catch {
            return [];
          }
        };
        await untilProgress("c writes its temp file", () => temps().length === 1, {
          progress: () => 0,
          noProgressMs: 60_000,
        });
        await c.stop();
        assert.ok(await copying instanceof Error);
        assert.deepEqual(temps(), [], "the temp file is removed");

        // The import's wait for b ends when its client leaves.
        await etcd.txn({ compare: [], success: [{ delete: { key: bKey } }], failure: [] });
        const left = new AbortController();
        const waiting = shareImports(a, batch, { deadlineMs: () => 60_000, signal: left.signal });
        left.abort();
        await assert.rejects(
          waiting,
          (e) =>
            e instanceof CueportError && e.code === "UNAVAILABLE" && /client left/.test(e.message),
        );
      } finally {
        await Promise.all([a.stop(), b.stop()]);
        await server.shutdown();
      }
    });
  },
});
