/**
 * When a rig snapshots its group's log and when it takes a snapshot (docs/rigs.md, "Snapshots and
 * a bounded log"): the log's applier tells it each entry applied; on the leading rig, every
 * `everyEntries` entries or `everyBytes` bytes of entries, it captures the state (between two
 * entries: the state at exactly that revision), then writes it (`snapshot.ts`) and trims the log
 * behind it, one write at a time, beside the applying. A rig whose kept revision is older than
 * the snapshot's restores the snapshot before it applies the entries after it.
 * @module
 */
import type { Logger } from "../log.ts";
import type { Etcd } from "./etcd.ts";
import type { GroupKeys } from "./keys.ts";
import { NotLeading, readSnapshot, type SnapshotMeta, trimLog, writeSnapshot } from "./snapshot.ts";

/** What a rig's state offers its snapshots: captured and restored whole. */
export interface SnapshotTarget {
  /** The state the log made here (the Projects), as JSON. */
  capture(): Promise<unknown>;
  /** Replaces the state with `state`, the log's at `revision`. */
  restore(state: unknown, revision: number): Promise<void>;
}

/** Options of a `SnapshotKeeper`. */
export interface SnapshotKeeperOptions {
  etcd: Etcd;
  keys: GroupKeys;
  /** This rig's name: its campaign key fences its writes. */
  rig: string;
  target: SnapshotTarget;
  /** Whether this rig leads now (the group's view; the fence decides). */
  isLeader: () => boolean;
  /** A snapshot every this many entries (default 1000)... */
  everyEntries?: number;
  /** ...or this many bytes of entries, whichever comes first (default 1 MiB). */
  everyBytes?: number;
  log: Logger;
}

/** Counts the entries a rig applies; snapshots when it leads and they are many. */
export class SnapshotKeeper {
  readonly #o: SnapshotKeeperOptions;
  #entries = 0;
  #bytes = 0;
  #writing: Promise<void> | null = null;
  /** Snapshots this rig wrote, and entries it trimmed. */
  written = 0;
  trimmed = 0;

  /** Counting from now. */
  constructor(options: SnapshotKeeperOptions) {
    this.#o = options;
  }

  /** Waits for a snapshot being written (tests; a rig stopping). */
  async settled(): Promise<void> {
    await this.#writing;
  }

  /**
   * Restores the snapshot of `meta` (read whole, checked by its sha256): the revision applied then.
   * @throws when it is not whole (a newer one replaced it meanwhile): read the log again
   */
  async restore(meta: SnapshotMeta): Promise<number> {
    const snapshot = await readSnapshot(this.#o.etcd, this.#o.keys);
    if (snapshot === null || snapshot.meta.id !== meta.id) {
      throw new Error(`The group's snapshot ${meta.id} was replaced while it was read`);
    }
    await this.#o.target.restore(snapshot.state, meta.revision);
    this.#o.log(
      "info",
      `Rig group: took the snapshot at revision ${meta.revision} (${meta.bytes} bytes, from ${meta.rig})`,
    );
    this.#entries = 0;
    this.#bytes = 0;
    return meta.revision;
  }

  /**
   * Told each entry applied (`bytes` its size in etcd), between two entries: captures the state
   * when this rig leads and a snapshot is due, and writes it beside the applying.
   */
  async applied(revision: number, bytes: number): Promise<void> {
    this.#entries++;
    this.#bytes += bytes;
    const due = this.#entries >= (this.#o.everyEntries ?? 1000) ||
      this.#bytes >= (this.#o.everyBytes ?? 1024 * 1024);
    if (!due || this.#writing !== null || !this.#o.isLeader()) return;
    let state: unknown;
    try {
      state = await this.#o.target.capture();
    } catch (error) {
      this.#o.log(
        "warn",
        `Rig group: no snapshot, the state not captured: ${(error as Error).message}`,
      );
      return;
    }
    this.#entries = 0;
    this.#bytes = 0;
    this.#writing = this.#write(revision, state).finally(() => this.#writing = null);
  }

  async #write(revision: number, state: unknown): Promise<void> {
    const { etcd, keys, rig, log } = this.#o;
    try {
      const meta = await writeSnapshot(etcd, keys, rig, revision, state);
      this.written++;
      const deleted = await trimLog(etcd, keys, rig, revision);
      this.trimmed += deleted;
      log(
        "info",
        `Rig group: snapshot at revision ${revision} (${meta.bytes} bytes, ${meta.gzipBytes} gzipped, ${meta.chunks} chunks); ${deleted} log entries trimmed`,
      );
    } catch (error) {
      const level = error instanceof NotLeading ? "info" : "warn";
      log(level, `Rig group: no snapshot at revision ${revision}: ${(error as Error).message}`);
    }
  }
}
