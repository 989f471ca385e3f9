/**
 * The media of a group's snapshot (docs/rigs.md, "Snapshots and a bounded log"): the leader
 * writes beside the Projects each Project file's SHA-256 (`<projectId>/<path>` to hash, for the
 * files the group holds by hash), and puts the preset images the presets name into the group's
 * media (announced, so other rigs can copy them). A rig that takes the snapshot copies each file
 * it lacks from a holder (`RigMedia.ensure`, its hash checked) and places it where its Project
 * (or the preset store) reads it, before the Projects are replaced: the files play there once
 * the player reads the Projects again.
 * @module
 */
import type { RigMedia } from "./media_copies.ts";
import { hashFile, isSha256 } from "./media_files.ts";
import { MediaMissing } from "./media_imports.ts";

/** Each Project file's SHA-256, by `<projectId>/<path>` (a snapshot's `media`). */
export type MediaIndex = Record<string, string>;

/** What the media reads of a snapshot's state (`ProjectsState`): files and preset images. */
interface StateMedia {
  projects?: Array<{ id?: unknown; files?: Array<{ path?: unknown; size?: unknown }> }>;
  presets?: Array<{ images?: Array<{ sha256?: unknown; mimeType?: unknown }> }>;
}

/** The preset store's images folder (`player/output/imported_images.ts`). */
const PRESET_IMAGES = "preset_images";
const IMAGE_EXTENSIONS: Record<string, string> = { "image/png": "png", "image/jpeg": "jpg" };

/** What the snapshot's media uses of the rig's media. */
export type SnapshotRigMedia = Pick<
  RigMedia,
  "store" | "announce" | "holders" | "ensure" | "checkSpace"
>;

/** A snapshot's media: indexed on the leader, placed on the rig that takes it. */
export class SnapshotMedia {
  readonly #media: SnapshotRigMedia;
  readonly #dataDir: string;
  /** The hashes of Project files already read, by path (kept while size and mtime stay). */
  readonly #hashes = new Map<string, { size: number; mtime: number; sha256: string }>();

  /** The media of the rig of data dir `dataDir` (the player's too). */
  constructor(media: SnapshotRigMedia, dataDir: string) {
    this.#media = media;
    this.#dataDir = dataDir;
  }

  /**
   * On the leader: the hash of each Project file of `state` the group holds by hash (a file of
   * a size no group file has is not read), and each preset image put in the group's media.
   */
  async index(state: unknown): Promise<MediaIndex> {
    const { projects = [], presets = [] } = (state ?? {}) as StateMedia;
    const store = this.#media.store;
    const sizes = new Set<number>();
    const held = new Set(await store.list());
    for (const sha256 of held) {
      const size = await store.size(sha256);
      if (size !== null) sizes.add(size);
    }
    const index: MediaIndex = {};
    for (const { id, relative, size } of projectFiles(projects)) {
      if (!sizes.has(size)) continue;
      const sha256 = await this.#hashOf(`${this.#dataDir}/projects/${id}/${relative}`);
      if (sha256 !== null && held.has(sha256)) index[`${id}/${relative}`] = sha256;
    }
    for (const { sha256, file } of presetImages(presets)) {
      if (held.has(sha256)) continue;
      const path = `${this.#dataDir}/${PRESET_IMAGES}/${file}`;
      try {
        using source = await Deno.open(path, { read: true });
        const stored = await store.receive(source.readable, { sha256 });
        await this.#media.announce(sha256, stored.size);
        held.add(sha256);
      } catch {
        // Not on this rig (or its bytes changed): not offered; a rig lacking it goes without.
      }
    }
    return index;
  }

  /**
   * On the rig taking the snapshot: every file of `index` and every preset image it lacks,
   * copied from a holder (hash checked) and placed where the player reads it.
   * @throws {MediaMissing} when no live rig gave a file's bytes (the snapshot is taken again)
   */
  async place(state: unknown, index: MediaIndex | undefined): Promise<void> {
    const { projects = [], presets = [] } = (state ?? {}) as StateMedia;
    for (const { id, relative } of projectFiles(projects)) {
      const sha256 = index?.[`${id}/${relative}`];
      if (sha256 === undefined || !isSha256(sha256)) continue;
      await this.#placeOne(sha256, `${this.#dataDir}/projects/${id}`, relative);
    }
    for (const { sha256, file } of presetImages(presets)) {
      if ((await this.#media.holders(sha256)).size === 0) continue; // nobody offers it
      await this.#placeOne(sha256, this.#dataDir, `${PRESET_IMAGES}/${file}`);
    }
  }

  /** Copies the group's file `sha256` to `<dir>/<relative>` unless it is there already. */
  async #placeOne(sha256: string, dir: string, relative: string): Promise<void> {
    const path = `${dir}/${relative}`;
    const held = await this.#media.store.size(sha256);
    const there = await Deno.stat(path).then((s) => s.size, () => null);
    if (there !== null && (held === null || there === held)) return;
    await this.#media.ensure(sha256).catch((error) => {
      throw new MediaMissing(sha256, error);
    });
    await this.#media.checkSpace((await this.#media.store.size(sha256)) ?? 0);
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    const temp = `${path}.in-${crypto.randomUUID()}`;
    try {
      await Deno.copyFile(this.#media.store.path(sha256), temp);
      await Deno.rename(temp, path);
    } catch (error) {
      await Deno.remove(temp).catch(() => {});
      throw error;
    }
  }

  /** The SHA-256 of the file at `path` (read once while its size and mtime stay), or null. */
  async #hashOf(path: string): Promise<string | null> {
    try {
      const stat = await Deno.stat(path);
      const mtime = stat.mtime?.getTime() ?? 0;
      const known = this.#hashes.get(path);
      if (known && known.size === stat.size && known.mtime === mtime) return known.sha256;
      const { sha256 } = await hashFile(path);
      this.#hashes.set(path, { size: stat.size, mtime, sha256 });
      return sha256;
    } catch {
      return null; // removed meanwhile: not offered
    }
  }
}

/** The files of `projects` whose id and path name a file inside its Project's `media/`. */
function projectFiles(projects: StateMedia["projects"] & object) {
  const files: Array<{ id: string; relative: string; size: number }> = [];
  for (const project of projects) {
    if (typeof project.id !== "string" || !/^[A-Za-z0-9_-]{1,64}$/.test(project.id)) continue;
    for (const file of project.files ?? []) {
      const relative = file.path;
      if (typeof relative !== "string" || !relative.startsWith("media/")) continue;
      if (relative.split("/").some((part) => part === ".." || part === "")) continue;
      const size = typeof file.size === "number" ? file.size : -1;
      files.push({ id: project.id, relative, size });
    }
  }
  return files;
}

/** The images the presets name, each with its file name in the preset store's folder. */
function presetImages(presets: StateMedia["presets"] & object) {
  const images = new Map<string, string>();
  for (const preset of presets) {
    for (const image of preset.images ?? []) {
      const extension = IMAGE_EXTENSIONS[String(image.mimeType)];
      if (typeof image.sha256 !== "string" || !isSha256(image.sha256) || !extension) continue;
      images.set(image.sha256, `${image.sha256}.${extension}`);
    }
  }
  return [...images].map(([sha256, file]) => ({ sha256, file }));
}
