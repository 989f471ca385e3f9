/**
 * The media of a group's snapshot (docs/rigs.md, "Snapshots and a bounded log"): the leader
 * writes beside the Projects each Project file's SHA-256 (`<projectId>/<path>` to hash), and puts
 * every such file the group does not hold yet (one no group import brought: the demo's, a file
 * made on this rig) into its group media, a hard link (announced, so other rigs can copy it),
 * as it does the preset images the presets name. A rig that takes the snapshot copies each file
 * it lacks from a holder (`RigMedia.ensure`, its hash checked) and places it where its Project
 * (or the preset store) reads it, a hard link to its group media, before the Projects are
 * replaced: the files play there once the player reads the Projects again.
 * @module
 */
import type { Logger } from "../log.ts";
import type { RigMedia } from "./media_copies.ts";
import { hashFile, isSha256 } from "./media_files.ts";
import { MediaMissing } from "./media_imports.ts";
import { fileId } from "./media_store.ts";

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
  readonly #log: Logger | undefined;
  /** Whether the log said how files are held (linked or copied): said once. */
  #said = false;

  /** The media of the rig of data dir `dataDir` (the player's too); `log` says once how files are held. */
  constructor(media: SnapshotRigMedia, dataDir: string, log?: Logger) {
    this.#media = media;
    this.#dataDir = dataDir;
    this.#log = log;
  }

  /**
   * On the leader: the hash of each Project file of `state` on this rig's disk (one linked to a
   * group file is that file; another read once while its size and mtime stay), each not held by
   * the group yet put in its media and announced; each preset image too.
   */
  async index(state: unknown): Promise<MediaIndex> {
    const { projects = [], presets = [] } = (state ?? {}) as StateMedia;
    const store = this.#media.store;
    const byInode = await store.inodes();
    const held = new Set(byInode.values());
    const index: MediaIndex = {};
    for (const { id, relative } of projectFiles(projects)) {
      const path = `${this.#dataDir}/projects/${id}/${relative}`;
      const known = await this.#hashOf(path, byInode);
      if (known === null) continue; // not on this rig's disk: not offered
      if (!held.has(known.sha256) && !await this.#offer(path, known)) continue;
      held.add(known.sha256);
      index[`${id}/${relative}`] = known.sha256;
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

  /** Puts the Project file at `path` into the group's media and announces it: whether it could. */
  async #offer(
    path: string,
    known: { sha256: string; size: number; mtime: number },
  ): Promise<boolean> {
    try {
      const how = await this.#media.store.adopt(path, known);
      if (how !== "held") this.#held(how, path);
      await this.#media.announce(known.sha256, known.size);
      return true;
    } catch (error) {
      this.#log?.(
        "info",
        `Rig group: ${path} not offered to the group: ${(error as Error).message}`,
      );
      return false; // changed or removed meanwhile: offered at the next snapshot
    }
  }

  /** Says once in the log whether files are held once (linked) or twice (copied). */
  #held(how: "linked" | "copied", path: string): void {
    if (this.#said) return;
    this.#said = true;
    this.#log?.(
      "info",
      how === "linked"
        ? `Rig group: media held once on disk (${path} hard-linked with group-media/)`
        : `Rig group: media held twice on disk (${path} copied: group-media/ and the Projects are not on one filesystem, or it has no hard links)`,
    );
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
    this.#held(await this.#media.store.place(sha256, path), path);
  }

  /**
   * The SHA-256, size and mtime of the file at `path`: the group file's when it is a link to one,
   * else read once while its size and mtime stay; null when it is not there.
   */
  async #hashOf(
    path: string,
    byInode: Map<string, string>,
  ): Promise<{ sha256: string; size: number; mtime: number } | null> {
    try {
      const stat = await Deno.stat(path);
      const mtime = stat.mtime?.getTime() ?? 0;
      const linked = byInode.get(fileId(stat) ?? "");
      if (linked !== undefined) return { sha256: linked, size: stat.size, mtime };
      const known = this.#hashes.get(path);
      if (known && known.size === stat.size && known.mtime === mtime) return known;
      const { sha256, size } = await hashFile(path);
      this.#hashes.set(path, { size, mtime, sha256 });
      return { sha256, size, mtime };
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
