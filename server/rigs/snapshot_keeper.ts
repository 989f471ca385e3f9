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
import { RpcError } from "../../protocol/jsonrpc.ts";
import type { EditApplyResult } from "../../protocol/edits/apply.ts";
import { NotLeading, readSnapshot, type SnapshotMeta, trimLog, writeSnapshot } from "./snapshot.ts";
import type { MediaIndex } from "./snapshot_media.ts";
import { MediaMissing } from "./media_imports.ts";
import { KEY_LIFE_MS, KEYS_KEPT } from "./edit_log.ts";

/** What applying one entry came to: its result, or the refusal every rig makes. */
export type Applied = { result: EditApplyResult } | { refusal: unknown };

/**
 * How many entries' outcomes a snapshot carries (the newest): a rig whose own edit a snapshot
 * covers before it applied it answers its client with the outcome the leader got.
 */
export const ANSWERS_KEPT = 2000;

/** An entry's outcome as a snapshot carries it: the result, or the refusal's code and message. */
type Answer = { result: unknown } | { refusal: { code: number; message: string; data?: unknown } };

/** An entry of the log as applied, as `SnapshotKeeper.applied` is told it. */
export interface AppliedEntry {
  /** The etcd revision of the entry. */
  revision: number;
  /** Its size in etcd (key and value), bytes. */
  bytes: number;
  /** Its id, when it was readable. */
  id?: string | undefined;
  /** What applying it came to (a result or a refusal). */
  outcome?: Applied | undefined;
  /** The client key of a keyed entry. */
  key?: string | undefined;
}

/** A keyed entry's answer as kept: its entry, its outcome, and when it was applied (ms). */
interface KeyedAnswer {
  id: string;
  answer: Answer;
  at: number;
}

/**
 * What a snapshot holds: the target's state, the outcomes of the newest entries by id, the keyed
 * entries' outcomes by client key with their age at the capture (absent in an older snapshot),
 * and each Project file's SHA-256 (`snapshot_media.ts`; absent in a snapshot of a rig without
 * media).
 */
interface Held {
  state: unknown;
  answers: [string, Answer][];
  keys?: [string, { id: string; answer: Answer; ageMs: number }][];
  media?: MediaIndex;
}

/** The media of the snapshots (`SnapshotMedia`): indexed when written, placed when taken. */
export interface SnapshotMediaLike {
  index(state: unknown): Promise<MediaIndex>;
  place(state: unknown, index: MediaIndex | undefined): Promise<void>;
}

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
  /** The media the snapshots name by hash; none: a rig taking one copies no file. */
  media?: SnapshotMediaLike;
  log: Logger;
  /** The clock the keyed answers' ages are taken on, ms (default `performance.now`; tests). */
  now?: () => number;
}

/** Counts the entries a rig applies; snapshots when it leads and they are many. */
export class SnapshotKeeper {
  readonly #o: SnapshotKeeperOptions;
  #entries = 0;
  #bytes = 0;
  #writing: Promise<void> | null = null;
  /** The outcomes of the newest entries applied here (or taken with a snapshot), by entry id. */
  readonly #answers = new Map<string, Answer>();
  /**
   * The keyed entries' outcomes by client key, kept as long as the key lives in etcd
   * (`KEY_LIFE_MS`, at most `KEYS_KEPT`: the oldest go first): a retry with the key after
   * this rig took a snapshot is answered as the first time.
   */
  readonly #keyed = new Map<string, KeyedAnswer>();
  /**
   * The snapshot this rig waits to take (a file it names no live rig gave yet), since when (ms,
   * `performance.now`), and why: shown as the group status's `log.waitingFor`; null when none.
   */
  waiting: { revision: number; since: number; error: MediaMissing } | null = null;
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
    const held = snapshot.state as Held;
    // The files first: the player reads its Projects again once they are replaced. A file no
    // live rig gave yet: shown as waited for, taken again after a second (not re-read at the
    // applier's 250 ms).
    await this.#o.media?.place(held.state, held.media).catch(async (error) => {
      if (error instanceof MediaMissing) {
        const since = this.waiting?.revision === meta.revision
          ? this.waiting.since
          : performance.now();
        this.waiting = { revision: meta.revision, since, error };
        await new Promise((wake) => setTimeout(wake, 1000));
      } else this.waiting = null;
      throw error;
    });
    await this.#o.target.restore(held.state, meta.revision);
    this.waiting = null;
    for (const [id, answer] of held.answers ?? []) this.#remember(id, answer);
    const now = this.#now();
    for (const [key, kept] of held.keys ?? []) {
      this.#rememberKey(key, { id: kept.id, answer: kept.answer, at: now - kept.ageMs });
    }
    this.#o.log(
      "info",
      `Rig group: took the snapshot at revision ${meta.revision} (${meta.bytes} bytes, from ${meta.rig})`,
    );
    this.#entries = 0;
    this.#bytes = 0;
    return meta.revision;
  }

  /**
   * The outcome of entry `id` as this rig or a snapshot knows it (one of the newest
   * `ANSWERS_KEPT`, or, for the client key `key` the entry was sent with, one whose key lives),
   * or undefined.
   */
  answerOf(id: string, key?: string): Applied | undefined {
    const keyed = key === undefined ? undefined : this.#keyed.get(key);
    const answer = this.#answers.get(id) ?? (keyed?.id === id ? keyed.answer : undefined);
    if (answer === undefined) return undefined;
    if ("result" in answer) return { result: structuredClone(answer.result) as EditApplyResult };
    const { code, message, data } = answer.refusal;
    return { refusal: new RpcError(code, message, data) };
  }

  /**
   * Told each entry applied, between two entries: captures the state when this rig leads and a
   * snapshot is due, and writes it beside the applying.
   * @example
   * ```ts
   * await keeper.applied({ revision: 12, bytes: 240, id: "e12", outcome, key: "phone/a1" });
   * ```
   */
  async applied(entry: AppliedEntry): Promise<void> {
    const { revision, bytes, id, outcome, key } = entry;
    if (id !== undefined && outcome !== undefined) {
      const answer = answerOf(outcome);
      this.#remember(id, answer);
      if (key !== undefined) this.#rememberKey(key, { id, answer, at: this.#now() });
    }
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
    const held: Held = { state, answers: [...this.#answers], keys: this.#keysHeld() };
    this.#writing = this.#write(revision, held).finally(() => this.#writing = null);
  }

  #remember(id: string, answer: Answer): void {
    this.#answers.delete(id);
    this.#answers.set(id, answer);
    if (this.#answers.size > ANSWERS_KEPT) this.#answers.delete(this.#answers.keys().next().value!);
  }

  #now(): number {
    return this.#o.now ? this.#o.now() : performance.now();
  }

  #rememberKey(key: string, kept: KeyedAnswer): void {
    this.#keyed.delete(key);
    this.#keyed.set(key, kept);
    if (this.#keyed.size > KEYS_KEPT) this.#keyed.delete(this.#keyed.keys().next().value!);
  }

  /** The keyed answers whose keys live, as a snapshot carries them (their age, not the clock). */
  #keysHeld(): NonNullable<Held["keys"]> {
    const now = this.#now();
    // Kept in the order applied: the oldest first.
    for (const [key, kept] of this.#keyed) {
      if (now - kept.at <= KEY_LIFE_MS) break;
      this.#keyed.delete(key);
    }
    return [...this.#keyed].map(([key, { id, answer, at }]) => [
      key,
      { id, answer, ageMs: now - at },
    ]);
  }

  async #write(revision: number, held: Held): Promise<void> {
    const { etcd, keys, rig, log } = this.#o;
    try {
      if (this.#o.media) held.media = await this.#o.media.index(held.state);
      const meta = await writeSnapshot(etcd, keys, rig, revision, held);
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

/** An outcome as a snapshot carries it (JSON: a refusal by its code, message and data). */
function answerOf(outcome: Applied): Answer {
  if ("result" in outcome) return { result: outcome.result };
  const refusal = (outcome.refusal ?? {}) as Partial<RpcError>;
  return {
    refusal: {
      code: typeof refusal.code === "number" ? refusal.code : -32603,
      message: String(refusal.message ?? outcome.refusal),
      ...(refusal.data !== undefined ? { data: refusal.data } : {}),
    },
  };
}
