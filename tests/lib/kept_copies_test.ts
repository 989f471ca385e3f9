import assert from "node:assert/strict";
import { writeFileAtomicSync, writeFilesAtomic } from "../../lib/atomic_write.ts";
import { prepareKeep, rotateKept } from "../../lib/kept_copies.ts";
import { isDiskFull } from "../../lib/disk_full.ts";
import { mountTmpfs } from "../../tools/testing/tmpfs.ts";

function names(dir: string): string[] {
  return [...Deno.readDirSync(dir)].map((e) => e.name).sort();
}

Deno.test("writeFilesAtomic() with keep rotates the previous versions into .1 .. .N", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/project.json`;
    for (let v = 1; v <= 5; v++) {
      await writeFilesAtomic([{ path, data: `v${v}` }], { keep: 3, skipFsync: true });
    }
    assert.equal(await Deno.readTextFile(path), "v5");
    assert.equal(await Deno.readTextFile(`${path}.1`), "v4");
    assert.equal(await Deno.readTextFile(`${path}.2`), "v3");
    assert.equal(await Deno.readTextFile(`${path}.3`), "v2");
    assert.deepEqual(names(dir), [
      "project.json",
      "project.json.1",
      "project.json.2",
      "project.json.3",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("writeFileAtomicSync() with keep rotates like the asynchronous write", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/live.json`;
    for (let v = 1; v <= 4; v++) writeFileAtomicSync(path, `v${v}`, { keep: 2, skipFsync: true });
    assert.deepEqual(
      [path, `${path}.1`, `${path}.2`].map((p) => Deno.readTextFileSync(p)),
      ["v4", "v3", "v2"],
    );
    assert.deepEqual(names(dir), ["live.json", "live.json.1", "live.json.2"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("writeFilesAtomic() with keep never leaves the target missing: only renames replace it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/presets.json`;
    await writeFilesAtomic([{ path, data: "v1" }], { keep: 3 });
    await writeFilesAtomic([{ path, data: "v2" }], { keep: 3 });
    const seen: string[] = [];
    // The last moment before the renames: the kept link exists and the target is still whole.
    await writeFilesAtomic([{ path, data: "v3" }], {
      keep: 3,
      beforeRename: () => {
        seen.push(Deno.readTextFileSync(path));
        seen.push(names(dir).filter((n) => n.endsWith(".tmp")).length.toString());
      },
    });
    assert.deepEqual(seen, ["v2", "2"]); // the new file's temp and the kept link's
    assert.equal(await Deno.readTextFile(path), "v3");
    assert.equal(await Deno.readTextFile(`${path}.1`), "v2");
    // The kept copy is a link: the same inode as the file was.
    const before = await Deno.stat(`${path}.1`);
    assert.equal(before.nlink, 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("prepareKeep() copies the file where the file system has no hard links", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/player.json`;
    await Deno.writeTextFile(path, "old");
    const noLinks = () => Promise.reject(new Deno.errors.PermissionDenied("EPERM: no links"));
    const kept = await prepareKeep(path, noLinks);
    assert.ok(kept);
    await rotateKept(path, kept, 3);
    assert.equal(await Deno.readTextFile(`${path}.1`), "old");
    assert.equal((await Deno.stat(path)).nlink, 1); // a copy, not a link
    assert.equal(await prepareKeep(`${dir}/missing.json`, noLinks), null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("writeFilesAtomic() with keep on a full disk changes no file and no generation", async () => {
  const disk = await mountTmpfs("1m");
  try {
    const path = `${disk.dir}/project.json`;
    await writeFilesAtomic([{ path, data: "v1" }], { keep: 3 });
    await writeFilesAtomic([{ path, data: "v2" }], { keep: 3 });
    disk.fill();
    const failed = await writeFilesAtomic([{ path, data: "x".repeat(8192) }], { keep: 3 })
      .then(() => null, (error) => error);
    assert.ok(isDiskFull(failed), String(failed));
    assert.equal(await Deno.readTextFile(path), "v2");
    assert.equal(await Deno.readTextFile(`${path}.1`), "v1");
    assert.deepEqual(names(disk.dir), [".filler", "project.json", "project.json.1"]);
  } finally {
    await disk.close();
  }
});
