import assert from "node:assert/strict";
import { writeFileAtomic, writeFileAtomicSync } from "../../lib/atomic_write.ts";
import { diskFullMessage, isDiskFull } from "../../lib/disk_full.ts";
import { mountTmpfs } from "../../tools/testing/tmpfs.ts";

Deno.test("isDiskFull() knows Deno's ENOSPC and quota errors, and nothing else", () => {
  const full = Object.assign(new Error("No space left on device (os error 28)"), {
    code: "ENOSPC",
  });
  assert.equal(isDiskFull(full), true);
  assert.equal(isDiskFull(new Error("Disk quota exceeded (os error 122): write 'x'")), true);
  assert.equal(
    isDiskFull(new Deno.errors.PermissionDenied("Permission denied (os error 13)")),
    false,
  );
  assert.equal(isDiskFull("No space left on device (os error 28)"), false);
});

Deno.test("diskFullMessage() names the data dir and what to free", () => {
  assert.equal(
    diskFullMessage("/srv/cueport", "the Project"),
    "Cannot write the Project: the disk of the data dir /srv/cueport is full: free space on it " +
      "(old recordings in recordings/, unused media) and try again",
  );
});

Deno.test("writeFileAtomic() on a full disk: fails as disk full, the old file whole, no temp left", async () => {
  const disk = await mountTmpfs("256k");
  try {
    const path = `${disk.dir}/project.json`;
    await writeFileAtomic(path, "old");
    disk.fill();
    const big = "x".repeat(64 * 1024);
    const error = await writeFileAtomic(path, big).then(() => null, (e) => e);
    assert.ok(isDiskFull(error), `disk full, not ${error}`);
    assert.throws(() => writeFileAtomicSync(path, big), (e) => isDiskFull(e));
    assert.equal(await Deno.readTextFile(path), "old");
    const names = [...Deno.readDirSync(disk.dir)].map((e) => e.name).sort();
    assert.deepEqual(names, [".filler", "project.json"]);
    disk.free();
    await writeFileAtomic(path, big);
    assert.equal((await Deno.readTextFile(path)).length, big.length);
  } finally {
    await disk.close();
  }
});
