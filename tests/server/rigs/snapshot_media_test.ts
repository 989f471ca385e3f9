/**
 * The media of a group's snapshot (server/rigs/snapshot_media.ts), on temp data dirs with the
 * rig's media stood in for (its store real, the copy from a holder a copy between two stores):
 * the leader indexes the Project files the group holds by hash and offers its preset images; the
 * rig taking the snapshot gets each file it lacks in its Project's folder with the same bytes,
 * leaves a file it has, refuses a path outside the Project, and waits (MediaMissing) when no
 * holder gives a file.
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

Deno.test("snapshot media: indexed on the leader, placed with the same bytes on the rig taking it", async () => {
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
    const index = await new SnapshotMedia(leader.media, `${root}/a`).index(state);
    assert.deepEqual(index, { "show/media/clip.mp4": sha256 }, "only the group's file, by hash");
    assert.deepEqual(leader.announced, [imageSha], "the preset image offered to the group");

    const back = rigMedia(`${root}/b`, leader.store);
    back.announced.push(imageSha); // the leader's announcement, as etcd holds it
    await new SnapshotMedia(back.media, `${root}/b`).place(state, index);
    assert.deepEqual(await Deno.readFile(`${root}/b/projects/show/media/clip.mp4`), clip);
    assert.deepEqual(await Deno.readFile(`${root}/b/preset_images/${imageSha}.png`), image);
    await assert.rejects(
      Deno.stat(`${root}/b/projects/show/media/local.mp4`),
      Deno.errors.NotFound,
    );
    await assert.rejects(Deno.stat(`${root}/escape.mp4`), Deno.errors.NotFound);

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

/** A temp file of `bytes` under `root`: its path. */
async function tempWith(root: string, bytes: Uint8Array): Promise<string> {
  const path = `${root}/temp-${crypto.randomUUID()}`;
  await Deno.writeFile(path, bytes);
  return path;
}
