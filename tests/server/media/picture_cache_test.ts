import assert from "node:assert/strict";
import { type Picture, PictureCache } from "../../../server/media/picture_cache.ts";

const picture = (n: number, size = 10): Picture => ({
  bytes: new Uint8Array(size).fill(n),
  contentType: "image/png",
  origin: "image",
});

Deno.test("the same cold picture asked by 50 clients at once is made once", async () => {
  let made = 0;
  const cache = new PictureCache();
  const { promise: gate, resolve } = Promise.withResolvers<void>();
  const make = async () => {
    made++;
    await gate;
    return picture(1);
  };
  const asks = Array.from({ length: 50 }, () => cache.get("k", make));
  resolve();
  const got = await Promise.all(asks);
  assert.equal(made, 1);
  assert.ok(got.every((p) => p.bytes[0] === 1));
  assert.equal((await cache.get("k", make)).bytes[0], 1);
  assert.equal(made, 1, "then from memory");
});

Deno.test("pictures are kept on disk across restarts, with their type and origin", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await new PictureCache({ dir }).get(
      "abcd",
      () => Promise.resolve({ ...picture(7), origin: "card" }),
    );
    let made = 0;
    const again = await new PictureCache({ dir }).get("abcd", () => {
      made++;
      return Promise.resolve(picture(0));
    });
    assert.equal(made, 0, "read from disk");
    assert.deepEqual([again.bytes[0], again.contentType, again.origin], [7, "image/png", "card"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("memory holds the most recently used pictures within its budget; a failed make is not kept", async () => {
  const cache = new PictureCache({ memoryBytes: 100 });
  for (let i = 0; i < 20; i++) await cache.get(`k${i}`, () => Promise.resolve(picture(i)));
  assert.equal(cache.peek("k0"), undefined, "the oldest went");
  assert.equal(cache.peek("k19")?.bytes[0], 19);
  await assert.rejects(cache.get("bad", () => Promise.reject(new Error("broken"))), /broken/);
  assert.equal((await cache.get("bad", () => Promise.resolve(picture(3)))).bytes[0], 3);
});

Deno.test("a picture's waiters share one make, which is aborted only when every waiter has left", async () => {
  const cache = new PictureCache();
  const get = cache.get.bind(cache) as (
    key: string,
    make: (signal: AbortSignal) => Promise<Picture>,
    signal?: AbortSignal,
  ) => Promise<Picture>;
  let made = 0;
  let makeSignal: AbortSignal | undefined;
  const gate = Promise.withResolvers<void>();
  const make = async (signal: AbortSignal) => {
    made++;
    makeSignal = signal;
    await gate.promise;
    return picture(7);
  };
  const one = new AbortController(), two = new AbortController();
  const first = get("k", make, one.signal).then((p) => p.bytes[0], (e) => e.name);
  const second = get("k", make, two.signal).then((p) => p.bytes[0], (e) => e.name);
  one.abort();
  assert.equal(await first, "CueportError", "the first waiter leaves at once");
  assert.equal(makeSignal?.aborted, false, "the second still waits: the make goes on");
  gate.resolve();
  assert.equal(await second, 7);
  assert.equal(made, 1);

  const gate2 = Promise.withResolvers<void>();
  const slow = async (signal: AbortSignal) => {
    makeSignal = signal;
    await gate2.promise;
    return picture(8);
  };
  const three = new AbortController(), four = new AbortController();
  const left = [get("j", slow, three.signal), get("j", slow, four.signal)]
    .map((p) => p.catch((e) => e.name));
  three.abort();
  four.abort();
  assert.deepEqual(await Promise.all(left), ["CueportError", "CueportError"]);
  assert.equal(makeSignal?.aborted, true, "nobody waits: the make is aborted");
  gate2.resolve();
});

/** The keys of the pictures on disk under `dir`. */
async function keysOnDisk(dir: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const sub of Deno.readDir(dir)) {
    if (!sub.isDirectory) continue;
    for await (const file of Deno.readDir(`${dir}/${sub.name}`)) {
      keys.push(file.name.split(".")[0]!);
    }
  }
  return keys.sort();
}

Deno.test("the disk holds the most recently used pictures within its budget (diskBytes), across restarts", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // Nothing in memory: every ask after the first reads the disk. A file is its 6-byte origin
    // line and 100 bytes: three fit in 350.
    const options = { dir, memoryBytes: 0, diskBytes: 350 };
    const cache = new PictureCache(options);
    const make = (n: number) => () => Promise.resolve(picture(n, 100));
    for (const n of [0, 1, 2]) await cache.get(`k${n}`, make(n));
    assert.deepEqual(await keysOnDisk(dir), ["k0", "k1", "k2"]);
    let made = 0;
    await cache.get("k0", () => (made++, make(0)())); // read: now the most recently used
    assert.equal(made, 0);
    await cache.get("k3", make(3));
    assert.deepEqual(await keysOnDisk(dir), ["k0", "k2", "k3"], "the least recently used went");

    // After a restart the files' times give the order: k2 is made the oldest.
    const old = new Date(Date.now() - 3_600_000);
    await Deno.utime(`${dir}/k2/k2.png`, old, old);
    await new PictureCache(options).get("k4", make(4));
    assert.deepEqual(await keysOnDisk(dir), ["k0", "k3", "k4"]);

    // A picture larger than the whole budget is answered, not kept, and evicts nothing.
    const big = await new PictureCache(options).get("k6", () => Promise.resolve(picture(6, 400)));
    assert.equal(big.bytes.length, 400);
    assert.deepEqual(await keysOnDisk(dir), ["k0", "k3", "k4"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
