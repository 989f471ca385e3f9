import assert from "node:assert/strict";
import { copyFile, removePartials, SourceChangedError } from "../../../player/media/copy.ts";

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "cueport-copy-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("copyFile() copies every byte, reporting progress from 0 to the size", async () => {
  await withDir(async (dir) => {
    const bytes = new Uint8Array(3 * 1024 * 1024 + 17).map((_, i) => (i * 7) & 255);
    await Deno.writeFile(`${dir}/from`, bytes);
    const seen: number[] = [];
    await copyFile(`${dir}/from`, `${dir}/to`, {
      size: bytes.length,
      onProgress: (n) => seen.push(n),
    });
    assert.deepEqual(await Deno.readFile(`${dir}/to`), bytes);
    assert.equal(seen[0], 0);
    assert.equal(seen.at(-1), bytes.length);
    assert.deepEqual(seen, [...seen].sort((a, b) => a - b), "progress never goes back");
  });
});

Deno.test("copyFile() refuses a source that ends early or grows, and removes the target", async () => {
  await withDir(async (dir) => {
    await Deno.writeFile(`${dir}/from`, new Uint8Array(1000));
    const short = await copyFile(`${dir}/from`, `${dir}/to`, { size: 2000 }).catch((e) => e);
    assert.ok(short instanceof SourceChangedError);
    assert.match(short.message, /ended after 1000 of 2000 bytes/);
    const grown = await copyFile(`${dir}/from`, `${dir}/to`, { size: 500 }).catch((e) => e);
    assert.ok(grown instanceof SourceChangedError);
    assert.match(grown.message, /went from 500 to 1000 bytes/);
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), ["from"]);
  });
});

Deno.test("copyFile() stops when aborted and never overwrites", async () => {
  await withDir(async (dir) => {
    await Deno.writeFile(`${dir}/from`, new Uint8Array(4 * 1024 * 1024));
    const controller = new AbortController();
    const stopped = await copyFile(`${dir}/from`, `${dir}/to`, {
      size: 4 * 1024 * 1024,
      signal: controller.signal,
      onProgress: () => controller.abort(new Error("stop")),
    }).catch((e) => e);
    assert.equal(stopped.message, "stop");
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), ["from"]);
    await Deno.writeFile(`${dir}/to`, new Uint8Array([1]));
    const taken = await copyFile(`${dir}/from`, `${dir}/to`, { size: 4 }).catch((e) => e);
    assert.ok(taken instanceof Deno.errors.AlreadyExists);
    assert.deepEqual(await Deno.readFile(`${dir}/to`), new Uint8Array([1]), "left as it was");
  });
});

Deno.test("removePartials() removes partial imports only", async () => {
  await withDir(async (dir) => {
    for (const name of [".import-0123abcd.partial", ".import-x.partial", "song.wav.partial"]) {
      await Deno.writeFile(`${dir}/${name}`, new Uint8Array(1));
    }
    assert.equal(await removePartials(dir), 1);
    const left = [...Deno.readDirSync(dir)].map((e) => e.name).sort();
    assert.deepEqual(left, [".import-x.partial", "song.wav.partial"]);
    assert.equal(await removePartials(`${dir}/missing`), 0);
  });
});
