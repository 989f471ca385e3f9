/**
 * A rig's media by hash (docs/rigs.md, "Media between rigs"): the files of
 * the group's imports, each at `<data dir>/group-media/<sha256>`, which this
 * rig serves to the other members and its player imports from. A file comes
 * in only through `receive`, which writes a temp name while it hashes the
 * bytes and renames it to its hash only when the hash is the one expected: a
 * partial or a wrong copy is never visible under a hash.
 * @module
 */
import { createHash } from "node:crypto";
import { diskFullMessage, isDiskFull } from "../../lib/disk_full.ts";
import { CueportError } from "../core/errors.ts";
import { isSha256 } from "./media_files.ts";

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
    this.dir = `${dataDir}/group-media`;
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
      await Deno.rename(temp, this.path(sha256));
      return { sha256, size };
    } catch (error) {
      await Deno.remove(temp).catch(() => {});
      if (isDiskFull(error)) {
        throw new CueportError("DISK_FULL", diskFullMessage(null, "a copy of the group's media"));
      }
      throw error;
    }
  }
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
