/**
 * A rig's media by hash (docs/rigs.md, "Media between rigs"): the files of
 * the group's imports, each at `<data dir>/group-media/<sha256>`, which this
 * rig serves to the other members and its player imports from. A file comes
 * in only through `receive`, which writes a temp name while it hashes the
 * bytes and renames it to its hash only when the hash is the one expected: a
 * partial or a wrong copy is never visible under a hash, and a file held is never replaced (a
 * Project's hard link to it keeps sharing its bytes). Held once on disk: a Project's file and the
 * store's are one file (a hard link, `linkOrCopy`) where both paths are on one filesystem, a copy
 * only where they are not. Neither side is ever written in place (each is written under a temp
 * name and renamed), so removing either name leaves the other's bytes whole.
 * @module
 */
import { createHash } from "node:crypto";
import { diskFullMessage, isDiskFull } from "../../lib/disk_full.ts";
import { CueportError } from "../core/errors.ts";
import { isSha256 } from "./media_files.ts";
import { GROUP_MEDIA_DIR } from "../../protocol/rigs.ts";

/** The temp names of copies under way (`.in-<uuid>`), removed at start when a rig died mid-copy. */
const TEMP = /^\.in-[0-9a-f-]{36}$/;

/** A copy whose bytes are not the ones its hash names: refused, never stored. */
export class HashMismatch extends Error {
  override name = "HashMismatch";
}

/** Options of `receive`. */
export interface ReceiveOptions {
  /** The hash the bytes must have; null: whatever they hash to (a file imported here). */
  sha256: string | null;
  /** The size the bytes must have, when known. */
  size?: number;
}

/** The media a rig holds, by hash. */
export class MediaStore {
  /** `<data dir>/group-media`. */
  readonly dir: string;

  /** The store of data dir `dataDir` (made at the first file). */
  constructor(dataDir: string) {
    this.dir = `${dataDir}/${GROUP_MEDIA_DIR}`;
  }

  /** Where the file of `sha256` is (or would be). */
  path(sha256: string): string {
    if (!isSha256(sha256)) throw new RangeError(`Not a SHA-256: "${sha256}"`);
    return `${this.dir}/${sha256}`;
  }

  /** The size of the file of `sha256`, or null when this rig does not hold it. */
  async size(sha256: string): Promise<number | null> {
    try {
      return (await Deno.stat(this.path(sha256))).size;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return null;
      throw error;
    }
  }

  /** The hashes held (names of finished files only). */
  async list(): Promise<string[]> {
    const held: string[] = [];
    try {
      for await (const entry of Deno.readDir(this.dir)) {
        if (entry.isFile && isSha256(entry.name)) held.push(entry.name);
      }
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    return held;
  }

  /** Removes the temp files of copies a stopped rig left. */
  async clearTemps(): Promise<void> {
    try {
      for await (const entry of Deno.readDir(this.dir)) {
        if (TEMP.test(entry.name)) await Deno.remove(`${this.dir}/${entry.name}`).catch(() => {});
      }
    } catch {
      // no store yet
    }
  }

  /**
   * Writes `bytes` to a temp name while hashing them, then renames it to its hash: the hash
   * and size stored.
   * @throws {HashMismatch} when the bytes are not those of `options.sha256` (nothing kept)
   * @throws {CueportError} DISK_FULL when the disk filled up (nothing kept)
   */
  async receive(
    bytes: ReadableStream<Uint8Array>,
    options: ReceiveOptions,
  ): Promise<{ sha256: string; size: number }> {
    await Deno.mkdir(this.dir, { recursive: true });
    const temp = `${this.dir}/.in-${crypto.randomUUID()}`;
    try {
      const { sha256, size } = await writeHashed(bytes, temp, options.size);
      if (options.sha256 !== null && sha256 !== options.sha256) {
        throw new HashMismatch(`the bytes hash to ${sha256}, not ${options.sha256}`);
      }
      if (options.size !== undefined && size !== options.size) {
        throw new HashMismatch(`${size} bytes came, not ${options.size}`);
      }
      await keepFirst(temp, this.path(sha256));
      return { sha256, size };
    } catch (error) {
      await Deno.remove(temp).catch(() => {});
      if (isDiskFull(error)) {
        throw new CueportError("DISK_FULL", diskFullMessage(null, "a copy of the group's media"));
      }
      throw error;
    }
  }

  /**
   * Puts the file at `path`, of hash `sha256` (read by the caller), into the store: a hard link
   * to it where the store is on its filesystem, else a copy whose hash is checked again. A file
   * held already is kept as it is. How it came: "held", "linked" or "copied".
   * @throws {HashMismatch} when the file changed since it was hashed (nothing kept)
   */
  async adopt(
    path: string,
    known: { sha256: string; size: number; mtime: number },
  ): Promise<"held" | "linked" | "copied"> {
    if (await this.size(known.sha256) !== null) return "held";
    await Deno.mkdir(this.dir, { recursive: true });
    const temp = `${this.dir}/.in-${crypto.randomUUID()}`;
    try {
      await Deno.link(path, temp);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) throw error;
      using file = await Deno.open(path, { read: true });
      await this.receive(file.readable, { sha256: known.sha256, size: known.size });
      return "copied";
    }
    try {
      const stat = await Deno.stat(temp);
      if (stat.size !== known.size || (stat.mtime?.getTime() ?? 0) !== known.mtime) {
        throw new HashMismatch(`${path} changed since it was hashed`);
      }
      await keepFirst(temp, this.path(known.sha256));
      return "linked";
    } finally {
      await Deno.remove(temp).catch(() => {});
    }
  }

  /**
   * Puts the store's file `sha256` at `path` (its folder made), replacing what is there in one
   * rename: a hard link where `path` is on the store's filesystem, else a copy. How it came.
   */
  async place(sha256: string, path: string): Promise<"linked" | "copied"> {
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    const temp = `${path}.in-${crypto.randomUUID()}`;
    try {
      const how = await linkOrCopy(this.path(sha256), temp);
      await Deno.rename(temp, path);
      return how;
    } catch (error) {
      await Deno.remove(temp).catch(() => {});
      throw error;
    }
  }

  /**
   * The hash of each held file by its device and inode (`fileId`): a Project file linked to one
   * is that file.
   */
  async inodes(): Promise<Map<string, string>> {
    const byInode = new Map<string, string>();
    for (const sha256 of await this.list()) {
      const id = await Deno.stat(this.path(sha256)).then(fileId, () => null);
      if (id !== null) byInode.set(id, sha256);
    }
    return byInode;
  }
}

/** A file's device and inode (`<dev>:<ino>`), or null where the system has none (Windows). */
export function fileId(stat: Deno.FileInfo): string | null {
  return stat.ino === null ? null : `${stat.dev}:${stat.ino}`;
}

/**
 * Makes `to` (a new name) the file `from`: a hard link where both are on one filesystem (no
 * second copy on disk), else a copy (another filesystem, or one without hard links).
 * @throws {Deno.errors.NotFound} when `from` is gone
 */
export async function linkOrCopy(from: string, to: string): Promise<"linked" | "copied"> {
  try {
    await Deno.link(from, to);
    return "linked";
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.AlreadyExists) {
      throw error;
    }
    await Deno.copyFile(from, to);
    return "copied";
  }
}

/**
 * Gives the finished temp file `temp` the name `final` unless a file has it already (the same
 * bytes, by its hash: the one held stays, with the Project links to it); `temp` then goes.
 */
async function keepFirst(temp: string, final: string): Promise<void> {
  try {
    await Deno.link(temp, final);
  } catch (error) {
    if (error instanceof Deno.errors.AlreadyExists) return await Deno.remove(temp);
    // No hard links here: a rename (over a file held meanwhile, with the same bytes).
    return await Deno.rename(temp, final);
  }
  await Deno.remove(temp);
}

/**
 * Writes `bytes` to the new file `path`, synced; their hash and size.
 * @throws {HashMismatch} as soon as more than `limit` bytes came (none past it is written)
 */
async function writeHashed(
  bytes: ReadableStream<Uint8Array>,
  path: string,
  limit = Infinity,
): Promise<{ sha256: string; size: number }> {
  const hash = createHash("sha256");
  let size = 0;
  using file = await Deno.open(path, { write: true, createNew: true, mode: 0o644 });
  for await (const chunk of bytes) {
    hash.update(chunk);
    size += chunk.length;
    if (size > limit) throw new HashMismatch(`more than the ${limit} bytes expected came`);
    let written = 0;
    while (written < chunk.length) written += await file.write(chunk.subarray(written));
  }
  await file.sync();
  return { sha256: hash.digest("hex"), size };
}
