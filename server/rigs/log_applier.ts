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
import type { EditApplyResult } from "../../protocol/edits/apply.ts";
import { LogEntry } from "../../protocol/rigs.ts";
import { writeJsonAtomic } from "../../lib/atomic_write.ts";
import type { Logger } from "../log.ts";
import type { Etcd, WatchEvent } from "./etcd.ts";
import type { GroupKeys } from "./keys.ts";
import { pause } from "./_pause.ts";

/** What applying one entry came to: its result, or the refusal every rig makes. */
export type Applied = { result: EditApplyResult } | { refusal: unknown };

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
  readonly #waiters = new Map<string, PromiseWithResolvers<Applied>>();
  #queue: WatchEvent[] = [];
  #wake: (() => void) | null = null;
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
    const queued = this.#queue.at(-1)?.kv.modRevision ?? 0;
    return Math.max(this.#applied, this.waiting?.revision ?? 0, queued);
  }

  /** The revision of the last entry applied (or skipped as already applied). */
  get applied(): number {
    return this.#applied;
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
        const read = await etcd.range(keys.log, { prefix: true });
        const behind = read.kvs.filter((kv) => kv.modRevision > this.#applied)
          .sort((a, b) => a.modRevision - b.modRevision);
        this.#take(behind.map((kv) => ({ type: "put", kv })));
        if (behind.length > 0) log("info", `Rig group: catching up ${behind.length} edits`);
        revision = read.revision;
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
      signal,
    });
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

  #take(events: WatchEvent[]): void {
    for (const event of events) {
      if (event.type === "put" && event.kv.modRevision > this.#applied) this.#queue.push(event);
    }
    this.#wake?.();
  }

  async #drain(): Promise<void> {
    const signal = this.#stopped.signal;
    while (!signal.aborted) {
      const event = this.#queue.shift();
      if (!event) {
        await new Promise<void>((resolve) => this.#wake = resolve);
        this.#wake = null;
        continue;
      }
      const revision = event.kv.modRevision;
      if (revision <= this.#applied) continue; // a watch restarted over what was applied
      const entry = LogEntry.safeParse(safeJson(event.kv.value));
      if (!entry.success) {
        this.#o.log("warn", `Rig group: log entry ${event.kv.key} unreadable; skipped`);
      } else {
        const outcome = await this.#applyOnce(entry.data, revision);
        if (outcome === null) return; // stopped
        this.#waiters.get(entry.data.id)?.resolve(outcome);
        this.#waiters.delete(entry.data.id);
      }
      this.#applied = revision;
      await this.#keep(revision);
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
      await writeJsonAtomic(this.#o.file, kept, { skipFsync: true });
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
