/**
 * Pictures already made: in memory and on disk under `<dataDir>/cache/media/`,
 * by key, each within a byte budget (the least recently used go first; on
 * disk the files' modification times keep that order across restarts, as a
 * file read is touched; setting `maxPictureCacheBytes`). A picture
 * asked for by many clients at once while it is being made is made once; it
 * stops being made (its make's signal aborts) only when every client that
 * asked for it has left.
 * @module
 */
import { writeFileAtomic } from "../../lib/atomic_write.ts";
import { CueportError, type MediaOrigin } from "../core/mod.ts";
import { SETTING_DEFAULTS } from "../../protocol/settings.ts";

/** A picture as kept. */
export interface Picture {
  bytes: Uint8Array<ArrayBuffer>;
  contentType: "image/jpeg" | "image/png";
  origin: MediaOrigin;
}

/** Options of the cache. */
export interface PictureCacheOptions {
  /** Where pictures are kept on disk; none: memory only. */
  dir?: string;
  /** Bytes kept in memory (default 64 MiB). */
  memoryBytes?: number;
  /** Bytes kept on disk (default: the `maxPictureCacheBytes` setting's); the least recently used files are removed past it. */
  diskBytes?: number;
}

const EXTENSIONS = { "image/jpeg": "jpg", "image/png": "png" } as const;

/** A picture being made, and how many still wait for it. */
interface Making {
  promise: Promise<Picture>;
  controller: AbortController;
  waiters: number;
}

/** The cache. */
export class PictureCache {
  #memory = new Map<string, Picture>();
  #memoryBytes = 0;
  #budget: number;
  #dir: string | undefined;
  #making = new Map<string, Making>();
  #disk: DiskIndex | null;

  /** Builds the cache; the files already on disk are counted at its first use of the disk. */
  constructor(options: PictureCacheOptions = {}) {
    this.#dir = options.dir;
    this.#budget = options.memoryBytes ?? 64 * 1024 * 1024;
    this.#disk = options.dir === undefined
      ? null
      : new DiskIndex(options.dir, options.diskBytes ?? SETTING_DEFAULTS.maxPictureCacheBytes);
  }

  /** The picture of `key` if it is in memory (it becomes the most recently used). */
  peek(key: string): Picture | undefined {
    const picture = this.#memory.get(key);
    if (picture) {
      this.#memory.delete(key);
      this.#memory.set(key, picture);
    }
    return picture;
  }

  /**
   * The picture of `key`: from memory, else from disk, else `make(signal)`
   * (once, however many ask meanwhile), then kept in both. A caller whose
   * `signal` aborts is refused at once (REQUEST_TIMEOUT); when the last one
   * waiting has left, the make's `signal` aborts.
   */
  get(
    key: string,
    make: (signal: AbortSignal) => Promise<Picture>,
    signal?: AbortSignal,
  ): Promise<Picture> {
    const known = this.peek(key);
    if (known) return Promise.resolve(known);
    if (signal?.aborted) return Promise.reject(abandoned());
    let making = this.#making.get(key);
    if (!making) {
      const controller = new AbortController();
      const started: Making = { controller, waiters: 0, promise: Promise.resolve(null!) };
      started.promise = this.#load(key, () => make(controller.signal)).finally(() => {
        if (this.#making.get(key) === started) this.#making.delete(key);
      });
      this.#making.set(key, started);
      making = started;
    }
    making.waiters++;
    if (!signal) return making.promise;
    const shared = making;
    return new Promise((resolve, reject) => {
      const leave = () => {
        reject(abandoned());
        if (--shared.waiters > 0) return;
        if (this.#making.get(key) === shared) this.#making.delete(key);
        shared.controller.abort();
      };
      signal.addEventListener("abort", leave, { once: true });
      shared.promise.then(resolve, reject).finally(() =>
        signal.removeEventListener("abort", leave)
      );
    });
  }

  async #load(key: string, make: () => Promise<Picture>): Promise<Picture> {
    const stored = await this.#read(key);
    const picture = stored ?? await make();
    this.#remember(key, picture);
    if (!stored && this.#disk) {
      // A picture that cannot be kept on disk is still answered.
      const record = this.#record(picture);
      const path = this.#path(key, picture);
      if (await this.#disk.admit(record.length)) {
        await writeFileAtomic(path, record, { skipFsync: true }).then(
          () => this.#disk!.written(path, record.length),
          () => this.#disk!.forget(path),
        );
      }
    }
    return picture;
  }

  #path(key: string, picture: Pick<Picture, "contentType">): string {
    return `${this.#dir}/${key.slice(0, 2)}/${key}.${EXTENSIONS[picture.contentType]}`;
  }

  /** The file: the origin on the first line, then the image bytes. */
  #record(picture: Picture): Uint8Array {
    const head = new TextEncoder().encode(`${picture.origin}\n`);
    const out = new Uint8Array(head.length + picture.bytes.length);
    out.set(head);
    out.set(picture.bytes, head.length);
    return out;
  }

  async #read(key: string): Promise<Picture | undefined> {
    if (!this.#dir) return undefined;
    for (const contentType of ["image/jpeg", "image/png"] as const) {
      let data: Uint8Array<ArrayBuffer>;
      try {
        data = await Deno.readFile(this.#path(key, { contentType }));
      } catch {
        continue;
      }
      const newline = data.indexOf(10);
      if (newline < 0 || newline > 16) continue;
      await this.#disk?.used(this.#path(key, { contentType }), data.length);
      const origin = new TextDecoder().decode(data.subarray(0, newline)) as Picture["origin"];
      return { bytes: data.slice(newline + 1), contentType, origin };
    }
    return undefined;
  }

  #remember(key: string, picture: Picture): void {
    if (picture.bytes.length > this.#budget / 4) return;
    const old = this.#memory.get(key);
    if (old) this.#memoryBytes -= old.bytes.length;
    this.#memory.delete(key);
    this.#memory.set(key, picture);
    this.#memoryBytes += picture.bytes.length;
    for (const [oldest, p] of this.#memory) {
      if (this.#memoryBytes <= this.#budget) break;
      this.#memory.delete(oldest);
      this.#memoryBytes -= p.bytes.length;
    }
  }
}

/** The error of a caller that left before its picture was made (nobody reads it). */
function abandoned(): CueportError {
  return new CueportError(
    "REQUEST_TIMEOUT",
    "The request was abandoned before its picture was made",
  );
}

/**
 * The files of the disk cache, least recently used first, and their bytes:
 * read from the directory (by modification time) before the first write or
 * read, then kept up to date; past the budget the oldest files are removed.
 */
class DiskIndex {
  #dir: string;
  #budget: number;
  /** Path to size, least recently used first. */
  #files = new Map<string, number>();
  #bytes = 0;
  #loaded: Promise<void> | null = null;

  constructor(dir: string, budget: number) {
    this.#dir = dir;
    this.#budget = budget;
  }

  /** Whether a file of `size` bytes may be written (it fits the budget alone). */
  async admit(size: number): Promise<boolean> {
    await this.#load();
    return size <= this.#budget;
  }

  /** A file was written: it is the most recently used; the oldest go past the budget. */
  written(path: string, size: number): void {
    this.#set(path, size);
    for (const oldest of this.#files.keys()) {
      if (this.#bytes <= this.#budget) break;
      if (oldest === path) continue;
      this.forget(oldest);
      Deno.remove(oldest).catch(() => {});
    }
  }

  /** A file was read: it becomes the most recently used, on disk too (its time). */
  async used(path: string, size: number): Promise<void> {
    await this.#load();
    this.#set(path, size);
    const now = new Date();
    await Deno.utime(path, now, now).catch(() => {});
  }

  /** A file is gone (removed, or its write failed). */
  forget(path: string): void {
    const size = this.#files.get(path);
    if (size === undefined) return;
    this.#files.delete(path);
    this.#bytes -= size;
  }

  #set(path: string, size: number): void {
    this.forget(path);
    this.#files.set(path, size);
    this.#bytes += size;
  }

  /** Every other method runs after it: the files found come before any met since. */
  #load(): Promise<void> {
    return this.#loaded ??= this.#scan().catch(() => {}); // no directory yet: nothing to count
  }

  async #scan(): Promise<void> {
    const found: Array<{ path: string; size: number; time: number }> = [];
    for await (const sub of Deno.readDir(this.#dir)) {
      if (!sub.isDirectory) continue;
      for await (const file of Deno.readDir(`${this.#dir}/${sub.name}`)) {
        if (!file.isFile || !/\.(jpg|png)$/.test(file.name)) continue;
        const path = `${this.#dir}/${sub.name}/${file.name}`;
        const info = await Deno.stat(path).catch(() => null);
        if (info) found.push({ path, size: info.size, time: info.mtime?.getTime() ?? 0 });
      }
    }
    found.sort((a, b) => a.time - b.time);
    for (const f of found) this.#set(f.path, f.size);
  }
}
