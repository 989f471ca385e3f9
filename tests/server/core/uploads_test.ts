import assert from "node:assert/strict";
import { stageUpload } from "../../../server/core/uploads.ts";
import { CueportError } from "../../../server/core/errors.ts";
import { mountTmpfs } from "../../../tools/testing/tmpfs.ts";

async function* chunks(count: number, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < count; i++) yield new Uint8Array(size);
}

Deno.test("stageUpload() on a full data dir disk: 507 DISK_FULL naming the data dir, nothing left", async () => {
  const disk = await mountTmpfs("256k");
  try {
    const dir = `${disk.dir}/uploads`;
    const error = await stageUpload(chunks(128, 4096), { dir, maxBytes: 1 << 30 })
      .then(() => null, (e) => e);
    assert.ok(error instanceof CueportError, String(error));
    assert.equal(error.code, "DISK_FULL");
    assert.equal(error.status, 507);
    assert.match(
      error.message,
      new RegExp(`^Cannot write the upload: the disk of the data dir ${disk.dir} is full`),
    );
    assert.deepEqual([...Deno.readDirSync(dir)], [], "the partial upload is gone");
  } finally {
    await disk.close();
  }
});
