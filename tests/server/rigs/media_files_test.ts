/**
 * The pure parts of media between rigs (server/rigs/media_files.ts,
 * media_store.ts, media_imports.ts): names by hash, ranges, the member token,
 * a store that keeps only bytes of the hash they name, and the import's deadline.
 */
import assert from "node:assert/strict";
import {
  bearerOf,
  hashFile,
  isSha256,
  mediaRef,
  parseRange,
  refOf,
  sameToken,
  WrongHolders,
} from "../../../server/rigs/media_files.ts";
import { HashMismatch, MediaStore } from "../../../server/rigs/media_store.ts";
import { copyDeadlineMs } from "../../../server/rigs/media_imports.ts";
import type { RigMedia } from "../../../server/rigs/media_copies.ts";
import { serveMedia } from "../../../server/rigs/media_route.ts";

const SHA_OF_ABC = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

function streamOf(...chunks: string[]): ReadableStream<Uint8Array> {
  return ReadableStream.from(chunks.map((c) => new TextEncoder().encode(c)));
}

Deno.test("mediaRef() and refOf() name a file by its hash, and nothing else", () => {
  assert.equal(refOf(mediaRef(SHA_OF_ABC)), SHA_OF_ABC);
  assert.equal(refOf("/tmp/clip.mp4"), null);
  assert.equal(refOf(`group-media:${SHA_OF_ABC.toUpperCase()}`), null);
  assert.equal(refOf("group-media:../../etc/passwd"), null);
  assert.equal(refOf(42), null);
  assert.ok(isSha256(SHA_OF_ABC));
  assert.ok(!isSha256(`${SHA_OF_ABC}0`));
});

Deno.test("parseRange() reads one byte range, and refuses what it does not serve", () => {
  assert.equal(parseRange(null, 100), null);
  assert.deepEqual(parseRange("bytes=0-9", 100), { start: 0, end: 9 });
  assert.deepEqual(parseRange("bytes=90-", 100), { start: 90, end: 99 });
  assert.deepEqual(parseRange("bytes=-10", 100), { start: 90, end: 99 });
  assert.deepEqual(parseRange("bytes=-500", 100), { start: 0, end: 99 });
  assert.deepEqual(parseRange("bytes=50-500", 100), { start: 50, end: 99 });
  for (
    const bad of ["bytes=100-", "bytes=9-1", "bytes=-0", "bytes=0-1,5-6", "items=0-1", "bytes=-"]
  ) {
    assert.equal(parseRange(bad, 100), "unsatisfiable", bad);
  }
});

Deno.test("sameToken() and bearerOf(): the member token, compared whole", () => {
  assert.ok(sameToken("abc", "abc"));
  assert.ok(!sameToken("abd", "abc"));
  assert.ok(!sameToken("ab", "abc"));
  assert.ok(!sameToken("", "abc"));
  assert.equal(bearerOf("Bearer abc"), "abc");
  assert.equal(bearerOf("bearer abc "), "abc");
  assert.equal(bearerOf("Basic abc"), null);
  assert.equal(bearerOf(null), null);
});

Deno.test("MediaStore.receive() keeps bytes under their hash only, never a wrong copy", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = new MediaStore(dir);
    assert.deepEqual(await store.receive(streamOf("a", "bc"), { sha256: null }), {
      sha256: SHA_OF_ABC,
      size: 3,
    });
    assert.equal(await Deno.readTextFile(store.path(SHA_OF_ABC)), "abc");
    assert.deepEqual(await hashFile(store.path(SHA_OF_ABC)), { sha256: SHA_OF_ABC, size: 3 });
    const other = "0".repeat(64);
    await assert.rejects(store.receive(streamOf("abd"), { sha256: other }), HashMismatch);
    await assert.rejects(
      store.receive(streamOf("abc"), { sha256: SHA_OF_ABC, size: 4 }),
      HashMismatch,
    );
    assert.equal(await store.size(other), null);
    // Nothing else in the store: no temp file of the refused copies is left, none is listed.
    assert.deepEqual([...Deno.readDirSync(store.dir)].map((e) => e.name), [SHA_OF_ABC]);
    assert.deepEqual(await store.list(), [SHA_OF_ABC]);
    assert.throws(() => store.path("../x"), RangeError);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("MediaStore.clearTemps() removes the copies a stopped rig left", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = new MediaStore(dir);
    await Deno.mkdir(store.dir);
    await Deno.writeTextFile(`${store.dir}/.in-${crypto.randomUUID()}`, "half");
    await Deno.writeTextFile(`${store.dir}/${SHA_OF_ABC}`, "abc");
    await store.clearTemps();
    assert.deepEqual([...Deno.readDirSync(store.dir)].map((e) => e.name), [SHA_OF_ABC]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("copyDeadlineMs() gives a large file more time", () => {
  assert.equal(copyDeadlineMs(0), 30_000);
  assert.equal(copyDeadlineMs(4_000_000_000), 430_000);
});

Deno.test("WrongHolders: a holder of wrong bytes is asked again later, later each time", () => {
  let now = 0;
  const wrong = new WrongHolders(() => now);
  assert.ok(wrong.mayAsk(SHA_OF_ABC, "a"));
  wrong.refused(SHA_OF_ABC, "a");
  assert.ok(!wrong.mayAsk(SHA_OF_ABC, "a"));
  assert.ok(wrong.mayAsk(SHA_OF_ABC, "b"), "another holder is asked at once");
  now = 1000;
  assert.ok(wrong.mayAsk(SHA_OF_ABC, "a"));
  wrong.refused(SHA_OF_ABC, "a");
  now = 2999;
  assert.ok(!wrong.mayAsk(SHA_OF_ABC, "a"), "2 s after the second");
  for (let i = 0; i < 10; i++) wrong.refused(SHA_OF_ABC, "a");
  now += 59_999;
  assert.ok(!wrong.mayAsk(SHA_OF_ABC, "a"));
  now += 1;
  assert.ok(wrong.mayAsk(SHA_OF_ABC, "a"), "at most 60 s");
  wrong.refused(SHA_OF_ABC, "a");
  wrong.held(SHA_OF_ABC);
  assert.ok(wrong.mayAsk(SHA_OF_ABC, "a"), "forgotten once held");
});

Deno.test("MediaStore.receive() stops reading once more bytes came than the holder announced", async () => {
  const dir = await Deno.makeTempDir();
  try {
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(4096));
      },
    }, { highWaterMark: 0 });
    await assert.rejects(
      new MediaStore(dir).receive(endless, { sha256: SHA_OF_ABC, size: 5000 }),
      HashMismatch,
    );
    assert.ok(pulled <= 3, `${pulled} chunks read`);
    assert.deepEqual([...Deno.readDirSync(`${dir}/group-media`)], [], "no temp file left");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("serveMedia(): no token is refused before etcd is asked; a path not a hash is 404", async () => {
  let asked = 0;
  const media = (token: string) =>
    ({
      token: () => {
        asked++;
        return Promise.resolve(token);
      },
    }) as unknown as RigMedia;
  const url = "http://rig/api/v1/group/media/";
  const bare = await serveMedia(media("t"), new Request(`${url}${"0".repeat(64)}`));
  assert.equal(bare.status, 401);
  assert.equal((await bare.json()).error.code, "GROUP_MEMBERS_ONLY");
  assert.equal(asked, 0, "etcd not asked without a token");
  const headers = { authorization: "Bearer t" };
  for (const path of ["..%2Fetc%2Fpasswd", "abc", "G".repeat(64)]) {
    const answer = await serveMedia(media("t"), new Request(`${url}${path}`, { headers }));
    assert.equal(answer.status, 404, path);
    assert.equal((await answer.json()).error.code, "NOT_FOUND");
  }
});

Deno.test("MediaStore: a file held once on disk, linked both ways; removing one name leaves the other", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cueport-media-links-" });
  try {
    const store = new MediaStore(dir);
    const ino = async (path: string) => {
      const stat = await Deno.stat(path);
      return `${stat.dev}:${stat.ino}`;
    };
    const { sha256 } = await store.receive(streamOf("abc"), { sha256: null });
    const held = await ino(store.path(sha256));
    // The same bytes again: the file held stays (a Project's link to it keeps sharing it).
    await store.receive(streamOf("a", "bc"), { sha256: SHA_OF_ABC });
    assert.equal(await ino(store.path(sha256)), held);
    assert.deepEqual([...(await store.inodes()).entries()], [[held, sha256]]);

    const placed = `${dir}/projects/show/media/abc.txt`;
    assert.equal(await store.place(sha256, placed), "linked");
    assert.equal(await ino(placed), held);
    await Deno.remove(placed);
    assert.equal(await Deno.readTextFile(store.path(sha256)), "abc");

    // A file made on this rig (no group import) adopted: one file, two names.
    const made = `${dir}/projects/show/media/made.txt`;
    await Deno.writeTextFile(made, "made here");
    const { sha256: madeSha, size } = await hashFile(made);
    const mtime = (await Deno.stat(made)).mtime!.getTime();
    assert.equal(await store.adopt(made, { sha256: madeSha, size, mtime }), "linked");
    assert.equal(await store.adopt(made, { sha256: madeSha, size, mtime }), "held");
    assert.equal(await ino(made), await ino(store.path(madeSha)));
    await Deno.remove(store.path(madeSha));
    assert.equal(await Deno.readTextFile(made), "made here");

    // Changed since it was hashed: refused, nothing held under the old hash.
    await Deno.writeTextFile(made, "changed, longer");
    await assert.rejects(store.adopt(made, { sha256: madeSha, size, mtime }), HashMismatch);
    assert.equal(await store.size(madeSha), null);
    assert.deepEqual((await Array.fromAsync(Deno.readDir(store.dir))).map((e) => e.name), [
      sha256,
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
