/**
 * The import's own refusals (player/edits/file_import.ts): a copy that fails
 * on the show machine (a name taken by a folder) is sent on purpose, marked
 * so that the service passes its message on instead of hiding it as a fault
 * (docs/player-protocol.md); a full disk is passed on as what it is, which
 * the player answers DISK_FULL. A rig group's file (`group-media/<sha256>`) is hard-linked into
 * the Project (one file on disk), copied only from another filesystem; any other file is copied.
 */
import assert from "node:assert/strict";
import { measureImport, placeImport, stageImport } from "../../../player/edits/file_import.ts";
import { Refusal } from "../../../player/errors.ts";
import { partialName } from "../../../player/media/copy.ts";
import { wavHeader } from "../../../player/media/encode.ts";
import { RpcErrorCode } from "../../../protocol/jsonrpc.ts";
import { isDiskFull } from "../../../lib/disk_full.ts";
import { mountTmpfs } from "../../../tools/testing/tmpfs.ts";

Deno.test("an import whose copy fails on the show machine is a deliberate INTERNAL_ERROR naming the file", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const source = `${dir}/a.wav`;
    await Deno.writeFile(source, wavHeader(4096, 48_000));
    await Deno.truncate(source, 4096 + 44);
    const mediaDir = `${dir}/media`;
    const jobId = "import-0000abcd";
    // The partial file's name is taken by a folder: the copy cannot open it for writing.
    await Deno.mkdir(`${mediaDir}/${partialName(jobId)}`, { recursive: true });
    const measured = await measureImport(source, "a.wav");
    const refused = await stageImport(measured, { mediaDir, jobId, isMove: false })
      .then(() => null, (error) => error);
    assert.ok(refused instanceof Refusal, String(refused));
    assert.equal(refused.code, RpcErrorCode.INTERNAL_ERROR);
    assert.match(refused.message, /^Cannot import ".*a\.wav": /);
    assert.deepEqual(refused.data, { isDeliberate: true });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an import whose copy finds the disk full fails as a full disk (DISK_FULL), its partial copy gone", async () => {
  const dir = await Deno.makeTempDir();
  const disk = await mountTmpfs("512k");
  try {
    const source = `${dir}/a.wav`;
    await Deno.writeFile(source, wavHeader(1 << 20, 48_000));
    await Deno.truncate(source, (1 << 20) + 44);
    const mediaDir = `${disk.dir}/media`;
    await Deno.mkdir(mediaDir);
    const measured = await measureImport(source, "a.wav");
    const failed = await stageImport(measured, {
      mediaDir,
      jobId: "import-0000abcd",
      isMove: false,
    })
      .then(() => null, (error) => error);
    assert.ok(isDiskFull(failed), String(failed));
    assert.ok(!(failed instanceof Refusal), "not hidden as a deliberate INTERNAL_ERROR");
    assert.deepEqual([...Deno.readDirSync(mediaDir)], []);
  } finally {
    await disk.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an import into a Project whose folder is gone fails and never makes the folder again", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const source = `${dir}/a.wav`;
    await Deno.writeFile(source, wavHeader(4096, 48_000));
    const measured = await measureImport(source, "a.wav");
    const mediaDir = `${dir}/projects/gone/media`; // deleted while the import was measured
    const refused = await stageImport(measured, {
      mediaDir,
      jobId: "import-0000abce",
      isMove: false,
    })
      .then(() => null, (error) => error);
    assert.ok(refused instanceof Refusal, String(refused));
    assert.equal(refused.code, RpcErrorCode.NOT_FOUND);
    assert.match(refused.message, /projects\/gone: the Project's folder is gone/);
    await assert.rejects(Deno.stat(`${dir}/projects/gone`), Deno.errors.NotFound);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("stageImport() links a group's file into the Project (one inode), copies any other file", async () => {
  const dir = await Deno.makeTempDir();
  const disk = await mountTmpfs("1m");
  try {
    const bytes = wavHeader(4096, 48_000);
    const group = `${dir}/group-media/${"a".repeat(64)}`; // a name of the store, any bytes here
    const own = `${dir}/own.wav`;
    const elsewhere = `${disk.dir}/group-media/${"b".repeat(64)}`; // another filesystem
    for (const path of [group, own, elsewhere]) {
      await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
      await Deno.writeFile(path, bytes);
    }
    const mediaDir = `${dir}/projects/show/media`;
    await Deno.mkdir(mediaDir, { recursive: true });
    const inode = (path: string) => Deno.statSync(path).ino;
    const imported = async (source: string, n: number) => {
      const measured = await measureImport(source, `${n}.wav`);
      const staged = await stageImport(measured, {
        mediaDir,
        jobId: `import-0000000${n}`,
        isMove: false,
      });
      return `${mediaDir}/${(await placeImport(staged, `file-${n}`)).name}`;
    };
    const linked = await imported(group, 1);
    assert.equal(inode(linked), inode(group), "the group's file and the Project's: one file");
    await Deno.remove(linked);
    assert.deepEqual(await Deno.readFile(group), bytes, "the group's file stays whole");
    assert.notEqual(inode(await imported(own, 2)), inode(own), "a file of the user's: copied");
    const copied = await imported(elsewhere, 3);
    assert.deepEqual(await Deno.readFile(copied), bytes, "another filesystem: copied");
  } finally {
    await disk.close();
    await Deno.remove(dir, { recursive: true });
  }
});
