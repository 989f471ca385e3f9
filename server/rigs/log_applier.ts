/**
 * The reading side of a rig group's edit log (docs/rigs.md, "The show
 * replicated"): every rig watches `/cueport/<group>/log/` and applies each
 * entry, one at a time in revision order, through the player's edit path
 * (seeded by the entry's revision, so every rig makes the same ids). The last
 * revision applied is kept in the data dir (`rig-log.json`): a rig that was away reads the
 * log's entries after it when it starts, then watches from there (the watch
 * restarts from the next revision when it moves to another member). A refusal is a refusal on every
 * rig; the asking rig answers its client when its own rig has applied the entry.
 * @module
 */
import { CueportError } from "../core/errors.ts";
import { LogEntry } from "../../protocol/rigs.ts";
import { writeJsonAtomic } from "../../lib/atomic_write.ts";
import type { Logger } from "../log.ts";
import type { Etcd, WatchEvent } from "./etcd.ts";
import type { GroupKeys } from "./keys.ts";
import { pause } from "./_pause.ts";
import { metaOf, snapshotKeys } from "./snapshot.ts";
import type { Applied, SnapshotKeeper } from "./snapshot_keeper.ts";

export type { Applied } from "./snapshot_keeper.ts";

/** Options of the applier. */
export interface LogApplierOptions {
  etcd: Etcd;
  keys: GroupKeys;
  /**
   * Applies `entry` seeded by `seed` (`r<revision>`); answers its outcome, or
   * throws when it could not be tried (the player not ready): tried again.
   */
  apply: (entry: LogEntry, seed: string) => Promise<Applied>;
  /** The file the last revision applied is kept in. */
  file: string;
  log: Logger;
  /** How long to wait before trying an entry again, ms (default 250). */
  retryMs?: number;
  /** Takes the group's snapshot when this rig is behind it, and snapshots on the leader. */
  snapshots?:
    & Pick<SnapshotKeeper, "restore" | "applied">
    & Partial<Pick<SnapshotKeeper, "answerOf">>;
  /**
   * The most events kept waiting (default 4096): past it (a player away while the log grows)
   * they are dropped and the log read again once the queue is applied (the log is the truth).
   */
  queueLimit?: number;
}

/** The file's content: the group (another group's revision means nothing here) and the revision. */
interface Kept {
  group: string;
  revision: number;
}

/** Applies a group's log on this rig. */
export class LogApplier {
  readonly #o: LogApplierOptions;
  readonly #stopped = new AbortController();
  /** The entries this rig's clients wait on, by id; `revision` once their commit answered. */
  readonly #waiters = new Map<string, PromiseWithResolvers<Applied> & { revision?: number }>();
  #queue: Array<WatchEvent | "catch up"> = [];
  #wake: (() => void) | null = null;
  /** Events were dropped past the queue's limit: every later one is, until a catch-up. */
  #dropped = false;
  #applied = 0;
  #loops: Promise<unknown>[] = [];

  /** The entry not applied yet (it threw: its file not copied, the player away), since when (ms). */
  waiting: { revision: number; since: number; error: unknown } | null = null;

  /** An applier not started yet (`start()`). */
  constructor(options: LogApplierOptions) {
    this.#o = options;
  }

  /** The revision of the last entry seen: applied, waiting or queued. */
  get head(): number {
    const last = this.#queue.findLast((e): e is WatchEvent => e !== "catch up");
    const queued = last?.kv.modRevision ?? 0;
    return Math.max(this.#applied, this.waiting?.revision ?? 0, queued);
  }

  /** The revision of the last entry applied (or skipped as already applied). */
  get applied(): number {
    return this.#applied;
  }

  /** How many events wait to be applied. */
  get queued(): number {
    return this.#queue.length;
  }

  /** Reads the kept revision and starts watching the log from the next one. */
  async start(): Promise<void> {
    this.#applied = await this.#readKept();
    this.#loops.push(this.#follow(), this.#drain());
  }

  /**
   * Reads the log's entries after the kept revision (a read, not a replay of etcd's history,
   * so that a compaction of that history loses nothing), then watches from after that read.
   * Tried again until etcd answers: a rig that starts cut off plays on meanwhile.
   */
  async #follow(): Promise<void> {
    const { etcd, keys, log } = this.#o;
    const signal = this.#stopped.signal;
    let revision = 0;
    while (!signal.aborted) {
      try {
        revision = await this.#catchUp();
        break;
      } catch (error) {
        log("debug", `Rig group: the log not read yet (${(error as Error).message})`);
        await pause(this.#o.retryMs ?? 250, signal);
      }
    }
    if (signal.aborted) return;
    await etcd.watch(keys.log, {
      fromRevision: revision + 1,
      onEvents: (events) => this.#take(events),
      // Entries may be lost with the history: read the log again, between two entries.
      onCompacted: () => {
        this.#queue.push("catch up");
        this.#wake?.();
      },
      signal,
    });
  }

  /**
   * Reads the log and the group's snapshot at one revision: takes the snapshot when this rig is
   * behind it (its entries were trimmed), then queues the entries after what it applied. The
   * revision read at.
   */
  async #catchUp(): Promise<number> {
    const { etcd, keys, log, snapshots } = this.#o;
    const read = await etcd.txn({
      compare: [],
      success: [{ range: { key: keys.log, prefix: true } }, {
        range: { key: snapshotKeys(keys).meta },
      }],
      failure: [],
    });
    const [kvs = [], metas = []] = read.ranges;
    const meta = metas[0] ? metaOf(metas[0]) : null;
    if (meta !== null && meta.revision > this.#applied) {
      if (snapshots === undefined) {
        log("warn", `Rig group: behind the group's snapshot (${meta.revision}) and cannot take it`);
      } else {
        this.#applied = await snapshots.restore(meta).catch((error) => {
          const waits = (error as { code?: unknown }).code === "NOT_READY"; // the player starting
          const line = `Rig group: cannot take the group's snapshot (${meta.revision}) yet: ${
            (error as Error).message
          }`;
          log(waits ? "debug" : "warn", line);
          throw error;
        });
        await this.#keep(this.#applied);
        for (const [id, waiter] of this.#waiters) {
          if (waiter.revision !== undefined && waiter.revision <= this.#applied) this.#covered(id);
        }
      }
    }
    const behind = kvs.filter((kv) => kv.modRevision > this.#applied)
      .sort((a, b) => a.modRevision - b.modRevision);
    this.#take(behind.map((kv) => ({ type: "put", kv })));
    if (behind.length > 0) log("info", `Rig group: catching up ${behind.length} edits`);
    return read.revision;
  }

  /** Stops watching and applying (an entry being applied finishes first). */
  async stop(): Promise<void> {
    this.#stopped.abort();
    this.#wake?.();
    await Promise.allSettled(this.#loops);
  }

  /**
   * The outcome of entry `id` once this rig has applied it; `cancel` forgets
   * it (its commit failed). Ask before committing: the watch may be quicker than the txn.
   */
  wait(id: string): { outcome: Promise<Applied>; cancel: () => void } {
    const waiter = Promise.withResolvers<Applied>();
    this.#waiters.set(id, waiter);
    return { outcome: waiter.promise, cancel: () => this.#waiters.delete(id) };
  }

  /**
   * Entry `id`'s commit answered `revision`. When a snapshot taken meanwhile covers it (this rig
   * never applies it), its client is answered from the snapshot.
   */
  committed(id: string, revision: number): void {
    const waiter = this.#waiters.get(id);
    if (waiter === undefined) return; // applied (answered) already
    waiter.revision = revision;
    if (revision <= this.#applied) this.#covered(id);
  }

  /**
   * Answers entry `id`, covered by the snapshot this rig took: the outcome the snapshot carries,
   * or (one older than the outcomes it carries) a TIMEOUT that says to read the Project.
   */
  #covered(id: string): void {
    const outcome = this.#o.snapshots?.answerOf?.(id) ?? {
      refusal: new CueportError(
        "TIMEOUT",
        "The edit is in the group's log and in the snapshot this rig took, but its outcome is no longer known here: read the Project to see it",
      ),
    };
    this.#waiters.get(id)?.resolve(outcome);
    this.#waiters.delete(id);
  }

  #take(events: WatchEvent[]): void {
    for (const event of events) {
      if (event.type !== "put" || event.kv.modRevision <= this.#applied) continue;
      this.#dropped ||= this.#queue.length >= (this.#o.queueLimit ?? 4096);
      if (!this.#dropped) this.#queue.push(event);
    }
    this.#wake?.();
  }

  async #drain(): Promise<void> {
    const signal = this.#stopped.signal;
    while (!signal.aborted) {
      const event = this.#queue.shift();
      if (!event && this.#dropped) {
        this.#dropped = false; // what was dropped comes after what was applied: read it now
        this.#queue.push("catch up");
        continue;
      }
      if (!event) {
        await new Promise<void>((resolve) => this.#wake = resolve);
        this.#wake = null;
        continue;
      }
      if (event === "catch up") {
        try {
          await this.#catchUp();
        } catch (error) {
          this.#o.log(
            "debug",
            `Rig group: the log not read again yet (${(error as Error).message})`,
          );
          this.#queue.unshift("catch up");
          await pause(this.#o.retryMs ?? 250, signal);
        }
        this.#queue.sort((a, b) => revisionOf(a) - revisionOf(b));
        continue;
      }
      const revision = event.kv.modRevision;
      if (revision <= this.#applied) continue; // a watch restarted over what was applied
      const entry = LogEntry.safeParse(safeJson(event.kv.value));
      let outcome: Applied | null | undefined;
      if (!entry.success) {
        this.#o.log("warn", `Rig group: log entry ${event.kv.key} unreadable; skipped`);
      } else {
        outcome = await this.#applyOnce(entry.data, revision);
        if (outcome === null) return; // stopped
        this.#waiters.get(entry.data.id)?.resolve(outcome);
        this.#waiters.delete(entry.data.id);
      }
      this.#applied = revision;
      await this.#keep(revision);
      const bytes = event.kv.key.length + event.kv.value.length;
      const { id, key } = entry.data ?? {};
      await this.#o.snapshots?.applied({ revision, bytes, id, outcome: outcome ?? undefined, key });
    }
  }

  /** Applies `entry` until it could be tried (the player back); null when stopped first. */
  async #applyOnce(entry: LogEntry, revision: number): Promise<Applied | null> {
    const signal = this.#stopped.signal;
    while (!signal.aborted) {
      try {
        const outcome = await this.#o.apply(entry, `r${revision}`);
        this.waiting = null;
        return outcome;
      } catch (error) {
        const since = this.waiting?.revision === revision ? this.waiting.since : performance.now();
        this.waiting = { revision, since, error };
        this.#o.log(
          "debug",
          `Rig group: log entry ${revision} not applied yet (${(error as Error).message})`,
        );
        await pause(this.#o.retryMs ?? 250, signal);
      }
    }
    return null;
  }

  async #readKept(): Promise<number> {
    try {
      const kept = JSON.parse(await Deno.readTextFile(this.#o.file)) as Partial<Kept>;
      return kept.group === this.#o.keys.root && typeof kept.revision === "number"
        ? kept.revision
        : 0;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return 0;
      throw error;
    }
  }

  async #keep(revision: number): Promise<void> {
    const kept: Kept = { group: this.#o.keys.root, revision };
    try {
      // Synced (file, then folder) before the next entry: after a power cut the kept revision
      // is the last one applied, so no entry is applied twice.
      await writeJsonAtomic(this.#o.file, kept);
    } catch (error) {
      this.#o.log("warn", `Rig group: cannot keep the log's revision: ${(error as Error).message}`);
    }
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** An event's revision; a pending catch-up first: the queued events may lie after its gap. */
function revisionOf(event: WatchEvent | "catch up"): number {
  return event === "catch up" ? -Infinity : event.kv.modRevision;
}
