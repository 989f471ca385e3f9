/**
 * Reading a show file's zip from disk without holding it in memory: zip.js
 * (`@zip.js/zip.js`, which reads Zip64 and checks each entry's CRC-32) over a
 * reader that seeks in the file, and each entry streamed through a sha256 as
 * it is written out.
 * @module
 */
import { configure, type Entry, type FileEntry, Reader, ZipReader } from "@zip.js/zip.js";
import { createHash } from "node:crypto";

// Workers would need a bundled worker script; one entry at a time is all an import does.
configure({ useWebWorkers: false });

/** A zip.js reader over an open file: reads what it is asked for, where it is asked. */
class FileRangeReader extends Reader<Deno.FsFile> {
  #file: Deno.FsFile;

  constructor(file: Deno.FsFile, size: number) {
    super(file);
    this.#file = file;
    this.size = size;
  }

  override async readUint8Array(index: number, length: number): Promise<Uint8Array> {
    const buffer = new Uint8Array(length);
    await this.#file.seek(index, Deno.SeekMode.Start);
    let filled = 0;
    while (filled < length) {
      const n = await this.#file.read(buffer.subarray(filled));
      if (n === null) break;
      filled += n;
    }
    return buffer.subarray(0, filled);
  }
}

/** An open show file: its entries, and the file to close. */
export interface OpenZip {
  entries: Entry[];
  close(): Promise<void>;
}

/**
 * Opens the zip at `path` and reads its central directory.
 * @throws {Error} from zip.js when it is no zip or is cut short (no end of central directory)
 */
export async function openZip(path: string): Promise<OpenZip> {
  const file = await Deno.open(path, { read: true });
  try {
    const { size } = await file.stat();
    const reader = new ZipReader(new FileRangeReader(file, size));
    const entries = await reader.getEntries();
    return {
      entries,
      close: async () => {
        await reader.close().catch(() => {});
        file.close();
      },
    };
  } catch (error) {
    file.close();
    throw error;
  }
}

/** Whether a zip entry is a symbolic link (its Unix file type `S_IFLNK`). */
export function isLink(entry: Entry): boolean {
  return ((entry.externalFileAttributes >>> 16) & 0o170000) === 0o120000;
}

/** What streaming an entry measured. */
export interface Measured {
  size: number;
  sha256: string;
}

/** An entry that inflates past the bytes it may have (a zip bomb, or a lying size). */
export class EntryTooLarge extends Error {
  /** Builds it for the cap `maxBytes`. */
  constructor(readonly maxBytes: number) {
    super(`inflates past ${maxBytes} bytes`);
    this.name = "EntryTooLarge";
  }
}

/**
 * The bytes of a small entry (JSON), with their measure, inflated as a stream
 * that stops once more than `maxBytes` came: a zip bomb is refused before it
 * is held whole. `onBytes` counts every chunk inflated.
 * @throws {EntryTooLarge} past `maxBytes`
 */
export async function readEntry(
  entry: FileEntry,
  maxBytes: number,
  onBytes?: (n: number) => void,
): Promise<{ bytes: Uint8Array } & Measured> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const sink = new WritableStream<Uint8Array>({
    write(chunk) {
      onBytes?.(chunk.length);
      size += chunk.length;
      if (size > maxBytes) throw new EntryTooLarge(maxBytes);
      chunks.push(chunk.slice());
    },
  });
  try {
    await entry.getData(sink);
  } catch (error) {
    // zip.js may wrap the sink's error; the cap is what it is about.
    if (size > maxBytes) throw new EntryTooLarge(maxBytes);
    throw error;
  }
  const bytes = new Uint8Array(size);
  chunks.reduce((at, chunk) => (bytes.set(chunk, at), at + chunk.length), 0);
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  return { bytes, size, sha256 };
}

/**
 * Writes an entry to the new file `to` (synced), hashing it as it goes; stops
 * writing once more than `maxBytes` came (a manifest that lies about a size).
 * @throws {Error} when zip.js finds the entry broken (CRC-32), or `signal` aborts
 */
export async function extractEntry(
  entry: FileEntry,
  to: string,
  options: { maxBytes: number; signal?: AbortSignal; onBytes?: (n: number) => void },
): Promise<Measured> {
  const file = await Deno.open(to, { write: true, createNew: true });
  const hash = createHash("sha256");
  let size = 0;
  const sink = new WritableStream<Uint8Array>({
    async write(chunk) {
      size += chunk.length;
      if (size > options.maxBytes) throw new Error(`more than its ${options.maxBytes} bytes`);
      hash.update(chunk);
      let written = 0;
      while (written < chunk.length) written += await file.write(chunk.subarray(written));
      options.onBytes?.(chunk.length);
    },
  });
  try {
    await entry.getData(sink, options.signal ? { signal: options.signal } : {});
    await file.sync();
    return { size, sha256: hash.digest("hex") };
  } finally {
    file.close();
  }
}
