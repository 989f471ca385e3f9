/**
 * The identity of a media file's content, which keys its derived pictures:
 * a SHA-256 of its size, modification time and bytes (all of them up to 4
 * MiB; beyond, three 1 MiB samples at the start, middle and end, so a 4 GB
 * video costs 3 MiB of reading, not 4 GB). A changed or re-imported file gets
 * a new key, so new pictures. Keys are remembered per path, size and time.
 * @module
 */
import { createHash } from "node:crypto";

/** Files up to this size are hashed whole. */
const WHOLE_UP_TO = 4 * 1024 * 1024;
const SAMPLE = 1024 * 1024;

/** Where a file is and how it is now. */
export interface FileStamp {
  path: string;
  size: number;
  /** ms since the epoch. */
  modifiedAt: number;
}

async function readAt(file: Deno.FsFile, offset: number, length: number): Promise<Uint8Array> {
  const bytes = new Uint8Array(length);
  await file.seek(offset, Deno.SeekMode.Start);
  let read = 0;
  while (read < length) {
    const n = await file.read(bytes.subarray(read));
    if (n === null) break;
    read += n;
  }
  return bytes.subarray(0, read);
}

/** The content key of a file as stamped (hex). */
export async function contentKey(stamp: FileStamp): Promise<string> {
  const hash = createHash("sha256").update(`${stamp.size}|${stamp.modifiedAt}|`);
  const file = await Deno.open(stamp.path, { read: true });
  try {
    if (stamp.size <= WHOLE_UP_TO) hash.update(await readAt(file, 0, stamp.size));
    else {
      for (const offset of [0, Math.floor(stamp.size / 2) - SAMPLE / 2, stamp.size - SAMPLE]) {
        hash.update(await readAt(file, offset, SAMPLE));
      }
    }
  } finally {
    file.close();
  }
  return hash.digest("hex");
}

/** Content keys remembered by stamp (a bounded number). */
export class ContentKeys {
  #keys = new Map<string, string>();
  #max: number;

  /** Remembers at most `max` keys. */
  constructor(max = 10_000) {
    this.#max = max;
  }

  /** The key of the file as stamped, computed once per stamp. */
  async of(stamp: FileStamp): Promise<string> {
    const id = `${stamp.size}|${stamp.modifiedAt}|${stamp.path}`;
    const known = this.#keys.get(id);
    if (known) return known;
    const key = await contentKey(stamp);
    if (this.#keys.size >= this.#max) this.#keys.delete(this.#keys.keys().next().value!);
    this.#keys.set(id, key);
    return key;
  }
}
