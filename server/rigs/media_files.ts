/**
 * The small parts of media between rigs (docs/rigs.md, "Media between rigs"):
 * how a file is named in the group's log (`group-media:<sha256>`), its hash,
 * the member token compared in constant time, a `Range` header read, and the
 * files of this rig's Projects found by their bytes (`ProjectFiles`).
 * @module
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { Logger } from "../log.ts";

/** How a logged `file.import` names its file: by content, never by a path of one machine. */
export const MEDIA_REF = "group-media:";

/** Whether `text` is a SHA-256 in lower-case hex (64 characters). */
export function isSha256(text: string): boolean {
  return /^[0-9a-f]{64}$/.test(text);
}

/** The log's name of the file of hash `sha256`. */
export function mediaRef(sha256: string): string {
  return `${MEDIA_REF}${sha256}`;
}

/** The hash a log's `path` names, or null when it names a path. */
export function refOf(path: unknown): string | null {
  if (typeof path !== "string" || !path.startsWith(MEDIA_REF)) return null;
  const sha = path.slice(MEDIA_REF.length);
  return isSha256(sha) ? sha : null;
}

/** The SHA-256 of the file at `path` (hex), read in chunks (a 4 GB video is never in memory). */
export async function hashFile(path: string): Promise<{ sha256: string; size: number }> {
  const hash = createHash("sha256");
  let size = 0;
  using file = await Deno.open(path, { read: true });
  for await (const chunk of file.readable) {
    hash.update(chunk);
    size += chunk.length;
  }
  return { sha256: hash.digest("hex"), size };
}

/** Whether `given` is `expected`, in a time that does not tell how much of it matched. */
export function sameToken(given: string, expected: string): boolean {
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b) && given.length === expected.length;
}

/** The bearer token of an `Authorization` header, or null. */
export function bearerOf(header: string | null): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match ? match[1]! : null;
}

/** The bytes a `Range` header asks of a file of `size` bytes (inclusive ends). */
export type ByteRange = { start: number; end: number };

/**
 * The one range of a `Range: bytes=...` header (`a-b`, `a-`, `-n`): null when there is no header
 * (the whole file), "unsatisfiable" for a range outside the file or one this does not serve
 * (several ranges, other units).
 */
export function parseRange(
  header: string | null,
  size: number,
): ByteRange | null | "unsatisfiable" {
  if (header === null) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === "" && match[2] === "")) return "unsatisfiable";
  const [first, last] = [match[1]!, match[2]!];
  if (first === "") {
    const n = Number(last);
    if (n === 0 || size === 0) return "unsatisfiable";
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(first);
  const end = last === "" ? size - 1 : Math.min(Number(last), size - 1);
  if (start >= size || end < start) return "unsatisfiable";
  return { start, end };
}

/**
 * Holders whose bytes were wrong, left alone for a while before they are asked again: 1 s after
 * the first wrong copy, doubling to 60 s, so a changed file of 4 GB is not read again and again.
 */
export class WrongHolders {
  readonly #until = new Map<string, { at: number; waitMs: number }>();
  readonly #now: () => number;

  /** `now`: a monotonic clock in ms (default `performance.now`). */
  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  /** Whether `rig` may be asked for `sha256` now. */
  mayAsk(sha256: string, rig: string): boolean {
    const left = this.#until.get(`${sha256}/${rig}`);
    return left === undefined || this.#now() >= left.at;
  }

  /** `rig` gave wrong bytes for `sha256`: not asked again for a while, longer each time. */
  refused(sha256: string, rig: string): void {
    const key = `${sha256}/${rig}`;
    const waitMs = Math.min(60_000, (this.#until.get(key)?.waitMs ?? 500) * 2);
    this.#until.set(key, { at: this.#now() + waitMs, waitMs });
  }

  /** `sha256` is held now: its holders are forgotten. */
  held(sha256: string): void {
    for (const key of this.#until.keys()) {
      if (key.startsWith(`${sha256}/`)) this.#until.delete(key);
    }
  }
}

/**
 * Tries again per key, later each time: `firstMs` after the first failure, doubling to `maxMs`
 * (a file a rig lacks is copied again until it holds it or nobody announces it any more).
 */
export class Backoff {
  readonly #timers = new Map<
    string,
    { delayMs: number; timer: ReturnType<typeof setTimeout> | null }
  >();

  /** Delays from `firstMs`, doubling to `maxMs`. */
  constructor(readonly firstMs = 1000, readonly maxMs = 60_000) {}

  /** Runs `again` for `key` after its next delay (one timer per key); answers that delay, ms. */
  later(key: string, again: () => void): number {
    const before = this.#timers.get(key);
    if (before?.timer) clearTimeout(before.timer);
    const delayMs = before ? Math.min(before.delayMs * 2, this.maxMs) : this.firstMs;
    const entry = { delayMs, timer: null as ReturnType<typeof setTimeout> | null };
    entry.timer = setTimeout(() => {
      entry.timer = null;
      again();
    }, delayMs);
    this.#timers.set(key, entry);
    return delayMs;
  }

  /** Whether a try of `key` is waiting for its timer. */
  isWaiting(key: string): boolean {
    return Boolean(this.#timers.get(key)?.timer);
  }

  /** `key` succeeded or is no longer wanted: its next try and delay are forgotten. */
  forget(key: string): void {
    const entry = this.#timers.get(key);
    if (entry?.timer) clearTimeout(entry.timer);
    this.#timers.delete(key);
  }

  /** Forgets every key (at stop). */
  clear(): void {
    for (const key of [...this.#timers.keys()]) this.forget(key);
  }
}

/** What `ProjectFiles.linkInto` uses of the rig's store (`MediaStore.adopt`). */
export interface AdoptingStore {
  adopt(path: string, known: { sha256: string; size: number; mtime: number }): Promise<string>;
}

/** A Project file of this rig found by its bytes: where it is, and what was read of it. */
export interface FoundFile {
  path: string;
  sha256: string;
  size: number;
  mtime: number;
}

/**
 * The media files of this rig's Projects (`<data dir>/projects/<id>/media/...`), found by size
 * first, then hash: a file another rig announces that a Project here holds already (the demo's,
 * generated byte for byte alike on every rig) is linked into the group's media from there, not
 * copied over the network. A file's hash is read once while its size and mtime stay.
 */
export class ProjectFiles {
  readonly #dir: string;
  readonly #hashes = new Map<string, { size: number; mtime: number; sha256: string }>();

  /** The Project files of the data dir `dataDir`. */
  constructor(dataDir: string) {
    this.#dir = `${dataDir}/projects`;
  }

  /**
   * A Project file whose bytes hash to `sha256`, among those of a size in `sizes` (only those
   * are read); null when none.
   */
  async find(sha256: string, sizes: ReadonlySet<number>): Promise<FoundFile | null> {
    if (sizes.size === 0) return null;
    for await (const path of mediaFiles(this.#dir)) {
      const stat = await Deno.stat(path).catch(() => null);
      if (!stat?.isFile || !sizes.has(stat.size)) continue;
      const known = await this.#hashOf(path, stat.size, stat.mtime?.getTime() ?? 0);
      if (known?.sha256 === sha256) return { path, ...known };
    }
    return null;
  }

  /**
   * Puts a Project file of this rig whose bytes are `sha256` (of a size a holder announced in
   * `holders`, then its hash) into `store`: a hard link (a copy across filesystems), so it is not
   * fetched over the network. The file taken, or null when none (or it changed meanwhile).
   */
  async linkInto(
    store: AdoptingStore,
    sha256: string,
    holders: ReadonlyMap<string, number>,
    log: Logger,
  ): Promise<FoundFile | null> {
    const found = await this.find(sha256, new Set(holders.values())).catch(() => null);
    if (found === null) return null;
    try {
      const how = await store.adopt(found.path, found);
      log("debug", `Rig group: media ${sha256} ${how} from ${found.path}, not fetched`);
      return found;
    } catch (error) {
      log("debug", `Rig group: ${found.path} not taken: ${(error as Error).message}`);
      return null; // changed meanwhile: fetched from a holder
    }
  }

  /** The hash of the file at `path` of `size` and `mtime`: kept, or read now; null when unread. */
  async #hashOf(path: string, size: number, mtime: number) {
    const kept = this.#hashes.get(path);
    if (kept && kept.size === size && kept.mtime === mtime) return kept;
    const read = await hashFile(path).catch(() => null);
    if (read === null || read.size !== size) return null; // removed or changed meanwhile
    const known = { size, mtime, sha256: read.sha256 };
    this.#hashes.set(path, known);
    return known;
  }
}

/** The paths of the files under each `<projects>/<id>/media/` (names starting with "." left). */
async function* mediaFiles(projects: string): AsyncGenerator<string> {
  for (const project of await names(projects)) {
    if (project.isDirectory && !project.name.startsWith(".")) {
      yield* filesUnder(`${projects}/${project.name}/media`);
    }
  }
}

/** The files under `dir`, its folders' too. */
async function* filesUnder(dir: string): AsyncGenerator<string> {
  for (const entry of await names(dir)) {
    if (entry.name.startsWith(".")) continue;
    if (entry.isDirectory) yield* filesUnder(`${dir}/${entry.name}`);
    else if (entry.isFile) yield `${dir}/${entry.name}`;
  }
}

/** The entries of the folder `dir`; none when it is not there. */
async function names(dir: string): Promise<Deno.DirEntry[]> {
  const entries: Deno.DirEntry[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) entries.push(entry);
  } catch {
    // not there (no Projects yet): none
  }
  return entries;
}
