import assert from "node:assert/strict";
import { contentKey, ContentKeys } from "../../../server/media/content_key.ts";

async function stampOf(path: string) {
  const stat = await Deno.stat(path);
  return { path, size: stat.size, modifiedAt: stat.mtime!.getTime() };
}

Deno.test("a file's content key changes with its bytes, and is the same for the same bytes", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/a.bin`;
    await Deno.writeFile(path, new Uint8Array(1000).fill(1));
    const stamp = await stampOf(path);
    const first = await contentKey(stamp);
    assert.equal(await contentKey(stamp), first);
    const bytes = new Uint8Array(1000).fill(1);
    bytes[500] = 2;
    await Deno.writeFile(path, bytes);
    // Same size and (forced) same time: only the bytes differ.
    await Deno.utime(path, stamp.modifiedAt / 1000, stamp.modifiedAt / 1000);
    assert.notEqual(await contentKey(await stampOf(path)), first);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a large file is keyed by samples: its start, middle and end count", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/big.bin`;
    const size = 12 * 1024 * 1024;
    await Deno.writeFile(path, new Uint8Array(size));
    const stamp = await stampOf(path);
    const keys = new ContentKeys();
    const first = await keys.of(stamp);
    let previous = first;
    for (const offset of [10, size / 2, size - 10]) {
      const file = await Deno.open(path, { write: true });
      await file.seek(offset, Deno.SeekMode.Start);
      await file.write(new Uint8Array([offset % 251 + 1]));
      file.close();
      await Deno.utime(path, stamp.modifiedAt / 1000, stamp.modifiedAt / 1000);
      const key = await contentKey(await stampOf(path));
      assert.notEqual(key, previous, `a change at ${offset}`);
      previous = key;
    }
    assert.equal(await keys.of(stamp), first, "remembered by stamp");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
