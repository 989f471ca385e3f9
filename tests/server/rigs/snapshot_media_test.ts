/**
 * The media of a group's snapshot (server/rigs/snapshot_media.ts), on temp data dirs with the
 * rig's media stood in for (its store real, the copy from a holder a copy between two stores):
 * the leader indexes every Project file on its disk by hash, puts one no group import brought into
 * its group media (a hard link, announced) and offers its preset images; the rig taking the
 * snapshot gets each file it lacks in its Project's folder with the same bytes, a hard link to its
 * group media, leaves a file it has, refuses a path outside the Project, and waits (MediaMissing)
 * when no holder gives a file.
 */
import assert from "node:assert/strict";
import { MediaStore } from "../../../server/rigs/media_store.ts";
import { hashFile } from "../../../server/rigs/media_files.ts";
import { MediaMissing } from "../../../server/rigs/media_imports.ts";
import { SnapshotMedia, type SnapshotRigMedia } from "../../../server/rigs/snapshot_media.ts";

/** A rig's media on `dataDir`: `ensure` copies from `holder`'s store (or fails without one). */
function rigMedia(dataDir: string, holder: MediaStore | null) {
  const store = new MediaStore(dataDir);
  const announced: string[] = [];
  const ensured: string[] = [];
  const media: SnapshotRigMedia = {
    store,
    announce: (sha256: string) => Promise.resolve(void announced.push(sha256)),
    holders: (sha256: string) =>
      Promise.resolve(
        new Map<string, number>(holder && announced.includes(sha256) ? [["rig-a", 1]] : []),
      ),
    ensure: async (sha256: string) => {
      ensured.push(sha256);
      if (await store.size(sha256) !== null) return;
      if (holder === null || await holder.size(sha256) === null) throw new Error("no live holder");
      using file = await Deno.open(holder.path(sha256), { read: true });
      await store.receive(file.readable, { sha256 });
    },
    checkSpace: () => Promise.resolve(),
  };
  return { media, store, announced, ensured };
}

/** Writes `bytes` at `path` (its folder made). */
async function put(path: string, bytes: Uint8Array): Promise<void> {
  await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  await Deno.writeFile(path, bytes);
}

const clip = new TextEncoder().encode("the clip's bytes");
const other = new TextEncoder().encode("bytes of no group file, longer");
const image = new TextEncoder().encode("a png, say");

Deno.test("snapshot media: indexed on the leader, placed with the same bytes on the rig taking it, each file once on disk", async () => {
  const root = await Deno.makeTempDir({ prefix: "cueport-snapshot-media-" });
  try {
    const leader = rigMedia(`${root}/a`, null);
    const { sha256 } = await leader.store.receive(new Blob([clip]).stream(), { sha256: null });
    await put(`${root}/a/projects/show/media/clip.mp4`, clip);
    await put(`${root}/a/projects/show/media/local.mp4`, other);
    const imageSha = (await hashFile(await tempWith(root, image))).sha256;
    await put(`${root}/a/preset_images/${imageSha}.png`, image);
    const state = {
      projects: [{
        id: "show",
        files: [
          { path: "media/clip.mp4", size: clip.length },
          { path: "media/local.mp4", size: other.length },
          { path: "media/../../escape.mp4", size: clip.length },
        ],
      }],
      presets: [{ images: [{ sha256: imageSha, mimeType: "image/png" }] }],
    };
    const localSha = (await hashFile(`${root}/a/projects/show/media/local.mp4`)).sha256;
    const index = await new SnapshotMedia(leader.media, `${root}/a`).index(state);
    assert.deepEqual(index, {
      "show/media/clip.mp4": sha256,
      "show/media/local.mp4": localSha,
    }, "every Project file on the leader's disk, by hash; none outside the Project");
    assert.deepEqual(
      leader.announced,
      [localSha, imageSha],
      "the file no group import brought, and the preset image, offered to the group",
    );
    assert.equal(
      await inode(`${root}/a/projects/show/media/local.mp4`),
      await inode(leader.store.path(localSha)),
      "the leader's file put in its group media as a hard link, not a copy",
    );

    const back = rigMedia(`${root}/b`, leader.store);
    back.announced.push(imageSha); // the leader's announcement, as etcd holds it
    await new SnapshotMedia(back.media, `${root}/b`).place(state, index);
    assert.deepEqual(await Deno.readFile(`${root}/b/projects/show/media/clip.mp4`), clip);
    assert.deepEqual(await Deno.readFile(`${root}/b/preset_images/${imageSha}.png`), image);
    assert.deepEqual(await Deno.readFile(`${root}/b/projects/show/media/local.mp4`), other);
    await assert.rejects(Deno.stat(`${root}/escape.mp4`), Deno.errors.NotFound);
    for (const [name, sha] of [["clip.mp4", sha256], ["local.mp4", localSha]] as const) {
      assert.equal(
        await inode(`${root}/b/projects/show/media/${name}`),
        await inode(back.store.path(sha)),
        `${name} placed as a hard link to the group's file`,
      );
    }
    // The Project's file removed: the group's file stays whole (and the other way round).
    await Deno.remove(`${root}/b/projects/show/media/clip.mp4`);
    assert.deepEqual(await Deno.readFile(back.store.path(sha256)), clip);
    await Deno.remove(back.store.path(localSha));
    assert.deepEqual(await Deno.readFile(`${root}/b/projects/show/media/local.mp4`), other);
    await new SnapshotMedia(back.media, `${root}/b`).place(state, index); // both back

    // Taken again: a file there already is left as it is, nothing copied.
    back.ensured.length = 0;
    await new SnapshotMedia(back.media, `${root}/b`).place(state, index);
    assert.deepEqual(back.ensured, []);

    // No holder gives it: the rig waits for it (MediaMissing), nothing placed.
    const alone = rigMedia(`${root}/c`, null);
    await assert.rejects(
      new SnapshotMedia(alone.media, `${root}/c`).place(state, index),
      (error) => error instanceof MediaMissing && error.sha256 === sha256,
    );
    await assert.rejects(Deno.stat(`${root}/c/projects/show/media/clip.mp4`), Deno.errors.NotFound);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

/** The device and inode of the file at `path`. */
async function inode(path: string): Promise<string> {
  const stat = await Deno.stat(path);
  return `${stat.dev}:${stat.ino}`;
}

/** A temp file of `bytes` under `root`: its path. */
async function tempWith(root: string, bytes: Uint8Array): Promise<string> {
  const path = `${root}/temp-${crypto.randomUUID()}`;
  await Deno.writeFile(path, bytes);
  return path;
}
