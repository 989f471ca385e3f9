/**
 * Media copied between rigs, checked by hash (docs/rigs.md, "Media between
 * rigs"). Each rig keeps the group's media by SHA-256 (`media_store.ts`) and
 * says in etcd which it holds (`/cueport/<group>/media/<sha256>/<rig>`); every
 * rig watches those announcements and copies a file it lacks from a live rig
 * that holds it (`GET /api/v1/group/media/<sha256>`, `media_route.ts`, with
 * the group's member token), checks the hash, stores it and announces it. One
 * copy at a time per file, a few files at once, free space checked first.
 * @module
 */
import { statfs } from "node:fs/promises";
import type { GroupStatus } from "../../protocol/rigs.ts";
import { diskFullMessage } from "../../lib/disk_full.ts";
import { CueportError } from "../core/errors.ts";
import type { Logger } from "../log.ts";
import type { Etcd, Kv } from "./etcd.ts";
import type { GroupKeys } from "./keys.ts";
import { HashMismatch, MediaStore } from "./media_store.ts";
import { Backoff, isSha256, ProjectFiles, WrongHolders } from "./media_files.ts";
import { pause } from "./_pause.ts";
import { announceHeld, mediaPrefix, recordOf } from "./media_records.ts";

export { mediaPrefix };

/** Files copied at once at most: a rig catching up does not take every core and the network. */
const COPIES_AT_ONCE = 2;
/** A copy whose holder sends nothing for this long is ended and tried from the next, ms. */
const IDLE_MS = 15_000;
/** Space left free beside a copy, bytes: the player's copy into its Project comes next. */
const SPARE_BYTES = 64 * 1024 * 1024;

/** What the media uses of the rig's group. */
export interface MediaGroup {
  readonly etcd: Etcd;
  readonly keys: GroupKeys;
  status(): GroupStatus;
}

/** Options of a rig's media. */
export interface RigMediaOptions {
  group: MediaGroup;
  /** The data dir: the media is kept in `group-media/` there. */
  dataDir: string;
  log: Logger;
  /** How a holder is asked (tests give their own). */
  fetch?: typeof fetch;
  /** A file not copied is tried again after `firstMs`, doubling to `maxMs` (1 s to 60 s). */
  retry?: { firstMs: number; maxMs: number };
  /**
   * This rig's player measures a file to import (`media.probe`), rejecting one it would refuse
   * with its stable code (UNSUPPORTED_MEDIA, CORRUPT_MEDIA, NOT_FOUND); absent: nothing probed.
   */
  probe?: (path: string) => Promise<unknown>;
}

/** What etcd records of a file: the rigs that hold it (its size) and that could not copy it. */
export interface MediaRecords {
  holders: Map<string, number>;
  /** The error's code, by rig (`DISK_FULL`). */
  failed: Map<string, string>;
}

/** The key of the group's member token. */
export function tokenKey(keys: GroupKeys): string {
  return `${keys.root}media-token`;
}

/** A rig's media of its group: what it holds, copies it lacks, and its member token. */
export class RigMedia {
  readonly store: MediaStore;
  /** The rig's group. */
  readonly group: MediaGroup;
  readonly #o: RigMediaOptions;
  readonly #copies = new Map<string, Promise<void>>();
  readonly #wrong = new WrongHolders();
  readonly #stopped = new AbortController();
  readonly #retry: Backoff;
  readonly #projects: ProjectFiles;
  #running = 0;
  #waiting: Array<() => void> = [];
  #token: string | null = null;
  #watch: Promise<void> | null = null;

  /** Not started yet (`start()`); the route answers from its construction. */
  constructor(options: RigMediaOptions) {
    this.#o = options;
    this.group = options.group;
    this.store = new MediaStore(options.dataDir);
    this.#retry = new Backoff(options.retry?.firstMs, options.retry?.maxMs);
    this.#projects = new ProjectFiles(options.dataDir);
  }

  /** Aborts when the media stops (`stop()`): waits for copies end then. */
  get stopped(): AbortSignal {
    return this.#stopped.signal;
  }

  /** Refuses a file this rig's player would not import (`RigMediaOptions.probe`): before any copy. */
  async probe(path: string): Promise<void> {
    await this.#o.probe?.(path);
  }

  /** This rig's name. */
  get rig(): string {
    return this.#o.group.status().rig;
  }

  /** Clears copies a stopped rig left, then announces what it holds and copies what it lacks. */
  async start(): Promise<void> {
    await this.store.clearTemps();
    this.#watch = this.#follow();
  }

  /** Stops copying (a copy under way is ended, its temp file removed). */
  async stop(): Promise<void> {
    this.#stopped.abort();
    this.#retry.clear();
    this.#freeSlot();
    await this.#watch;
    await Promise.allSettled(this.#copies.values());
  }

  /**
   * The group's member token: read from etcd, made there by the first rig that asks (a txn that
   * puts it only while absent). Only clients of etcd can read it.
   * @throws {EtcdUnavailable} when etcd does not answer
   */
  async token(): Promise<string> {
    if (this.#token !== null) return this.#token;
    const { etcd, keys } = this.#o.group;
    const key = tokenKey(keys);
    const made = Array.from(crypto.getRandomValues(new Uint8Array(32)))
      .map((b) => b.toString(16).padStart(2, "0")).join("");
    const answer = await etcd.txn({
      compare: [{ key, target: "CREATE", result: "EQUAL", createRevision: 0 }],
      success: [{ put: { key, value: made } }],
      failure: [{ range: { key } }],
    });
    this.#token = answer.succeeded ? made : answer.ranges[0]?.[0]?.value ?? null;
    if (this.#token === null) throw new Error("The group's media token was not read");
    return this.#token;
  }

  /** Says in etcd that this rig holds `sha256` (no lease: a rig away still holds its files). */
  async announce(sha256: string, size: number): Promise<void> {
    const key = `${mediaPrefix(this.#o.group.keys, sha256)}${this.rig}`;
    await this.#o.group.etcd.put(key, JSON.stringify({ size }));
  }

  /** The rigs that announced `sha256`, with the size they announced. */
  async holders(sha256: string): Promise<Map<string, number>> {
    return (await this.records(sha256)).holders;
  }

  /** The records of `sha256` (`MediaRecords`): who holds it, who could not copy it. */
  async records(sha256: string): Promise<MediaRecords> {
    const prefix = mediaPrefix(this.#o.group.keys, sha256);
    const { kvs } = await this.#o.group.etcd.range(prefix, { prefix: true });
    const holders = new Map<string, number>();
    const failed = new Map<string, string>();
    for (const kv of kvs) {
      const rig = kv.key.slice(prefix.length);
      const record = recordOf(kv);
      if ("error" in record) failed.set(rig, record.error);
      else holders.set(rig, record.size);
    }
    return { holders, failed };
  }

  /**
   * Makes sure this rig holds `sha256`: copied from a live holder (one copy per file however
   * many ask), its hash checked.
   * @throws when no live holder gave the right bytes (tried again by the caller)
   */
  ensure(sha256: string): Promise<void> {
    const under = this.#copies.get(sha256);
    if (under) return under;
    const copy = this.#copy(sha256).finally(() => this.#copies.delete(sha256));
    this.#copies.set(sha256, copy);
    return copy;
  }

  async #copy(sha256: string): Promise<void> {
    if (await this.store.size(sha256) !== null) return;
    const holders = await this.holders(sha256);
    const own = await this.#projects.linkInto(this.store, sha256, holders, this.#o.log);
    if (own !== null) {
      this.#wrong.held(sha256);
      return await this.announce(sha256, own.size); // held here already: not fetched
    }
    const live = this.#o.group.status().members.filter((m) => !m.isThisRig && holders.has(m.name));
    if (live.length === 0) {
      throw new Error(`No live rig holds media ${sha256} (holders: ${[...holders.keys()]})`);
    }
    await this.#slot();
    try {
      // Measured once the slot is taken (copies before it took space), for the file and the
      // player's copy of it into its Project (a hard link where it can, a copy across filesystems).
      await this.checkSpace(2 * Math.max(...live.map((m) => holders.get(m.name)!)));
      const why: string[] = [];
      for (const member of live) {
        if (!this.#wrong.mayAsk(sha256, member.name)) {
          why.push(`${member.name}: its bytes were wrong, asked again later`);
          continue;
        }
        for (const base of baseUrls(member)) {
          const size = holders.get(member.name)!; // each holder's own size: its bytes are checked
          const failure = await this.#copyFrom(`${base}/api/v1/group/media/${sha256}`, sha256, size)
            .then(() => null, (error: Error) => error);
          if (failure === null) {
            this.#wrong.held(sha256);
            return await this.announce(sha256, size);
          }
          if (failure instanceof CueportError && failure.code === "DISK_FULL") throw failure;
          why.push(`${member.name}: ${failure.message}`);
          if (!(failure instanceof HashMismatch)) continue;
          this.#wrong.refused(sha256, member.name); // that rig's file is wrong: the next rig
          break;
        }
      }
      throw new Error(`Media ${sha256} not copied: ${why.join("; ")}`);
    } finally {
      this.#running--;
      this.#freeSlot();
    }
  }

  /** Copies `url` into the store; its hash and size checked. */
  async #copyFrom(url: string, sha256: string, size: number): Promise<void> {
    const idle = new AbortController();
    let timer = setTimeout(() => idle.abort(), IDLE_MS);
    const signal = AbortSignal.any([idle.signal, this.#stopped.signal]);
    try {
      const answer = await (this.#o.fetch ?? fetch)(url, {
        headers: { authorization: `Bearer ${await this.token()}` },
        signal,
      });
      if (!answer.ok || !answer.body) {
        await answer.body?.cancel();
        throw new Error(`HTTP ${answer.status}`);
      }
      // Slow is not dead: the copy goes on while bytes come.
      const watched = answer.body.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, out) {
            clearTimeout(timer);
            timer = setTimeout(() => idle.abort(), IDLE_MS);
            out.enqueue(chunk);
          },
        }),
      );
      await this.store.receive(watched, { sha256, size });
    } catch (error) {
      if (error instanceof HashMismatch) {
        this.#o.log(
          "warn",
          `Rig group: media from ${url} refused, hash mismatch: ${error.message}`,
        );
        throw new HashMismatch(`hash mismatch (${error.message})`);
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Refuses a copy the disk of the data dir has no room for.
   * @throws {CueportError} DISK_FULL
   */
  checkSpace(size: number): Promise<void> {
    return checkSpace(this.#o.dataDir, size);
  }

  /** Waits for one of the `COPIES_AT_ONCE` slots. */
  async #slot(): Promise<void> {
    while (this.#running >= COPIES_AT_ONCE && !this.#stopped.signal.aborted) {
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
    this.#running++;
  }

  /** Wakes the copies waiting for a slot (each looks again). */
  #freeSlot(): void {
    for (const wake of this.#waiting.splice(0)) wake();
  }

  /** Announces what this rig holds, copies what it lacks, then on as files are announced. */
  async #follow(): Promise<void> {
    const { etcd } = this.#o.group;
    const signal = this.#stopped.signal;
    const prefix = mediaPrefix(this.#o.group.keys);
    let revision = 0;
    while (!signal.aborted && revision === 0) {
      try {
        const read = await etcd.range(prefix, { prefix: true });
        await announceHeld(this, read.kvs);
        this.#wanted(read.kvs);
        revision = read.revision;
      } catch (error) {
        this.#o.log("debug", `Rig group: media not listed yet (${(error as Error).message})`);
        await pause(1000, signal);
      }
    }
    if (signal.aborted) return;
    await etcd.watch(prefix, {
      fromRevision: revision + 1,
      onEvents: (events) => this.#wanted(events.filter((e) => e.type === "put").map((e) => e.kv)),
      // Announcements hidden by a compaction: listed again (a file missed is copied when needed).
      onCompacted: () =>
        void etcd.range(prefix, { prefix: true }).then(
          (read) => this.#wanted(read.kvs),
          (error) => this.#o.log("debug", `Rig group: media not listed again (${error.message})`),
        ),
      signal,
    });
  }

  /** Copies each file another rig announced that this rig lacks. */
  #wanted(kvs: Kv[]): void {
    const prefix = mediaPrefix(this.#o.group.keys);
    for (const kv of kvs) {
      const [sha256, rig] = kv.key.slice(prefix.length).split("/");
      if (!sha256 || !isSha256(sha256) || rig === this.rig || "error" in recordOf(kv)) continue;
      if (!this.#retry.isWaiting(sha256)) this.#want(sha256);
    }
  }

  /**
   * Copies `sha256`; a failure is tried again later (`Backoff`) while another rig announces it
   * and this rig lacks it. A full disk is recorded for the rig taking the import
   * (`<sha256>/<rig>`: `{error: "DISK_FULL"}`), which then fails at once.
   */
  #want(sha256: string): void {
    this.ensure(sha256).then(() => this.#retry.forget(sha256), async (error: Error) => {
      if (this.#stopped.signal.aborted) return;
      const full = error instanceof CueportError && error.code === "DISK_FULL";
      if (full) {
        const key = `${mediaPrefix(this.#o.group.keys, sha256)}${this.rig}`;
        await this.#o.group.etcd.put(key, JSON.stringify({ error: error.code })).catch(() => {});
      }
      const delay = this.#retry.later(sha256, () => void this.#wantAgain(sha256));
      this.#o.log(
        full ? "warn" : "info",
        `Rig group: ${error.message}; tried again in ${delay} ms`,
      );
    });
  }

  /** `#want` again, unless nobody announces `sha256` any more or this rig holds it. */
  async #wantAgain(sha256: string): Promise<void> {
    if (this.#stopped.signal.aborted) return;
    try {
      const { holders } = await this.records(sha256);
      const others = [...holders.keys()].some((rig) => rig !== this.rig);
      if (!others || await this.store.size(sha256) !== null) return this.#retry.forget(sha256);
    } catch {
      // etcd away: the copy fails and is tried again later
    }
    this.#want(sha256);
  }
}

/** The HTTP bases a member is reached at: each address of its record on its HTTP port. */
export function baseUrls(member: GroupStatus["members"][number]): string[] {
  const port = member.ports.http;
  if (!port) return [];
  return member.addresses.map((a) =>
    a.includes(":") ? `http://[${a}]:${port}` : `http://${a}:${port}`
  )
    .sort((a, b) => Number(a.includes("[")) - Number(b.includes("[")));
}

/**
 * Refuses a copy of `size` bytes the disk of the data dir `dataDir` has no room for.
 * @throws {CueportError} DISK_FULL
 */
export async function checkSpace(dataDir: string, size: number): Promise<void> {
  let free: number;
  try {
    const stats = await statfs(dataDir);
    free = Number(stats.bavail) * Number(stats.bsize);
  } catch {
    return; // not measurable here: a full disk is still caught when the copy writes
  }
  if (free < size + SPARE_BYTES) {
    throw new CueportError(
      "DISK_FULL",
      diskFullMessage(dataDir, `a copy of ${size} bytes of the group's media`),
    );
  }
}
