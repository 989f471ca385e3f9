/**
 * Edits in a rig group (docs/rigs.md, "The show replicated"): the core hands
 * each checked edit here instead of to its player; it is committed to the
 * group's log (`edit_log.ts`) and answered once this rig has applied it from
 * the log (`log_applier.ts`), as every rig does. A rig that cannot reach the
 * quorum refuses edits (GROUP_NO_QUORUM) and plays on.
 * @module
 */
import type { EditApplyResult } from "../../protocol/edits/apply.ts";
import type { GroupLog, LogEntry } from "../../protocol/rigs.ts";
import { CueportError } from "../core/errors.ts";
import type { Logger } from "../log.ts";
import {
  type Commit,
  COMMIT_REQUEST_TIMEOUT_MS,
  commitOnce,
  KEY_LEASE_EVERY_MS,
  KEY_SECONDS,
  noQuorum,
  outcomeUnknown,
} from "./edit_log.ts";
import type { Etcd } from "./etcd.ts";
import { GatewayEtcd } from "./etcd_gateway.ts";
import type { RigGroup } from "./group.ts";
import { type Applied, LogApplier } from "./log_applier.ts";
import type { RigMedia } from "./media_copies.ts";
import { localizeImports, MediaMissing, shareImports } from "./media_imports.ts";
import { SnapshotKeeper, type SnapshotTarget } from "./snapshot_keeper.ts";
import { SnapshotMedia } from "./snapshot_media.ts";

/** How long a committed edit's client waits for this rig to apply it, ms. */
const APPLIED_WITHIN_MS = 60_000;

/** The outcomes of this many entries applied last are kept: a keyed retry is answered from them. */
const OUTCOMES_KEPT = 2000;

/** A keyed edit: its client key (`client/key`) and what was asked with it. */
export interface EditKey {
  key: string;
  fingerprint: string;
}

/** What the rig's core offers the log: applying an entry through its player. */
export interface LogTarget {
  /** Applies a log entry seeded by `seed`: its outcome, or throws when it could not be tried. */
  applyLogged(entry: LogEntry, seed: string): Promise<Applied>;
  /**
   * The rig's Projects captured and restored whole, for the log's snapshots: without it this rig
   * neither writes a snapshot nor takes one (its log is not trimmed by it).
   */
  readonly snapshots?: SnapshotTarget;
}

/** What the edits use of the rig's group: its etcd, its keys and whether edits are possible. */
export type GroupOfEdits = Pick<RigGroup, "etcd" | "keys" | "status"> & {
  /** Tells the group's status how far this rig applied the log (`GroupStatus.log`). */
  setLog?: (source: (() => GroupLog) | null) => void;
};

/** Options of the replicated edits of a rig. */
export interface ReplicatedEditsOptions {
  group: GroupOfEdits;
  target: LogTarget;
  /** The data dir: the last revision applied is kept in `rig-log.json` there. */
  dataDir: string;
  log: Logger;
  /** The rig's media: imports copied to every rig (`media_imports.ts`); none, imports as alone. */
  media?: RigMedia;
  /** A snapshot every this many entries or bytes of entries (defaults: 1000, 1 MiB). */
  snapshotEvery?: { entries?: number; bytes?: number };
  /**
   * The etcd commits are sent to (default: the group's; over the JSON gateway, a client of
   * the same members whose requests wait `COMMIT_REQUEST_TIMEOUT_MS`, not the heartbeat's).
   */
  commitEtcd?: Etcd;
}

/** A rig's edits through its group's log. */
export class ReplicatedEdits {
  readonly #group: GroupOfEdits;
  readonly #applier: LogApplier;
  readonly #snapshots: SnapshotKeeper | undefined;
  readonly #media: RigMedia | undefined;
  readonly #commitEtcd: Etcd;
  /** The outcomes of the entries applied last, by entry id (insertion order: oldest first). */
  readonly #outcomes = new Map<string, Applied>();
  #keyLease: { id: Promise<string>; at: number } | null = null;

  /** Not applying yet (`start()`). */
  constructor(options: ReplicatedEditsOptions) {
    const { group, target, log } = options;
    this.#group = group;
    this.#commitEtcd = options.commitEtcd ?? commitClient(group);
    const media = this.#media = options.media;
    const snapshots = target.snapshots && new SnapshotKeeper({
      etcd: group.etcd,
      keys: group.keys,
      rig: group.status().rig,
      target: target.snapshots,
      isLeader: () => group.status().isLeader,
      ...(options.snapshotEvery?.entries ? { everyEntries: options.snapshotEvery.entries } : {}),
      ...(options.snapshotEvery?.bytes ? { everyBytes: options.snapshotEvery.bytes } : {}),
      ...(media ? { media: new SnapshotMedia(media, options.dataDir, log) } : {}),
      log,
    });
    this.#snapshots = snapshots;
    this.#applier = new LogApplier({
      etcd: group.etcd,
      keys: group.keys,
      // An import's file first (a rig that was away copies it from a holder), then the entry.
      apply: async (entry, seed) =>
        this.#kept(
          entry.id,
          await target.applyLogged(media ? await localizeImports(media, entry) : entry, seed),
        ),
      file: `${options.dataDir}/rig-log.json`,
      log,
      ...(snapshots ? { snapshots } : {}),
    });
  }

  /** The revision of the last entry this rig applied. */
  get applied(): number {
    return this.#applier.applied;
  }

  /** How far this rig applied the log, and the entry or snapshot (and file) it waits for. */
  progress(): GroupLog {
    const entry = this.#applier.waiting;
    const waiting = entry ?? this.#snapshots?.waiting ?? null;
    return {
      applied: this.#applier.applied,
      head: Math.max(this.#applier.head, waiting?.revision ?? 0),
      waitingFor: waiting && {
        of: entry ? "entry" : "snapshot",
        revision: waiting.revision,
        sha256: waiting.error instanceof MediaMissing ? waiting.error.sha256 : null,
        sinceMs: Math.round(performance.now() - waiting.since),
      },
    };
  }

  /** Applies the log from where this rig left it, and on as it grows. */
  start(): Promise<void> {
    return this.#applier.start();
  }

  /** Stops applying. */
  stop(): Promise<void> {
    return this.#applier.stop();
  }

  /**
   * Commits a checked batch to the log; answers what this rig's player made of it. A keyed
   * batch whose key is in the group already (sent before, on any rig) is answered the first
   * entry's outcome instead of committing again.
   * @throws {CueportError} GROUP_NO_QUORUM, GROUP_BEHIND, GROUP_OUTCOME_UNKNOWN, UNAVAILABLE,
   * TIMEOUT, GROUP_MEDIA_NOT_COPIED, DISK_FULL, IDEMPOTENCY_KEY_REUSED; the player's refusal
   * (RpcError)
   */
  async commit(
    asked: Pick<LogEntry, "projectId" | "edits">,
    keyed?: EditKey,
    signal?: AbortSignal,
  ): Promise<EditApplyResult> {
    const status = this.#group.status();
    if (!status.canEdit) throw noQuorum(status.reason ?? "cut off");
    this.#refuseBehind();
    const batch = this.#media
      ? await shareImports(this.#media, asked, signal ? { signal } : {})
      : asked;
    const entry: LogEntry = {
      id: `${status.rig}:${crypto.randomUUID()}`,
      rig: status.rig,
      ...batch,
      ...(keyed ? { key: keyed.key } : {}),
    };
    const key = keyed && { ...keyed, lease: await this.#leaseForKeys() };
    const own = this.#applier.wait(entry.id);
    let commit: Commit;
    try {
      commit = await commitOnce(this.#commitEtcd, this.#group.keys, entry, key ? { key } : {});
      // A snapshot taken meanwhile may cover it: its client is answered from the snapshot.
      if (commit.id === entry.id) this.#applier.committed(entry.id, commit.revision);
    } catch (error) {
      own.cancel();
      throw error;
    }
    if (commit.id === entry.id) return await answerOf(own);
    own.cancel();
    return await this.#earlier(commit, entry);
  }

  /**
   * The outcome of an earlier entry a keyed retry found: kept (applied here, or carried by the
   * snapshot this rig took, as long as its key lives), or awaited when not applied yet.
   */
  #earlier(commit: Commit, entry: LogEntry): Promise<EditApplyResult> {
    const kept = this.#outcomes.get(commit.id) ?? this.#snapshots?.answerOf(commit.id, entry.key);
    if (kept) return answerOf({ outcome: Promise.resolve(kept), cancel: () => {} });
    if (this.#applier.applied < commit.revision) return answerOf(this.#applier.wait(commit.id));
    return Promise.reject(outcomeUnknown(
      { ...entry, id: commit.id },
      this.#group.keys,
      "it was sent before with this Idempotency-Key and is in the log, but this rig no longer keeps its answer",
    ));
  }

  /** Keeps `outcome` of entry `id` for keyed retries (the oldest forgotten first); answers it. */
  #kept(id: string, outcome: Applied): Applied {
    this.#outcomes.set(id, outcome);
    if (this.#outcomes.size > OUTCOMES_KEPT) {
      this.#outcomes.delete(this.#outcomes.keys().next().value!);
    }
    return outcome;
  }

  /** The lease keys are put under now: granted anew every KEY_LEASE_EVERY_MS. */
  async #leaseForKeys(): Promise<string> {
    const now = performance.now();
    if (!this.#keyLease || now - this.#keyLease.at > KEY_LEASE_EVERY_MS) {
      const id = this.#commitEtcd.grant(KEY_SECONDS + KEY_LEASE_EVERY_MS / 1000);
      this.#keyLease = { id, at: now };
      id.catch(() => this.#keyLease = null);
    }
    try {
      return await this.#keyLease.id;
    } catch (error) {
      throw noQuorum((error as Error).message);
    }
  }

  /**
   * Refuses an edit while this rig waits for the file of an earlier entry or of the group's
   * snapshot: it would wait behind it for as long (a player briefly not ready is waited for).
   * @throws {CueportError} GROUP_BEHIND
   */
  #refuseBehind(): void {
    const refusal = behindRefusal(this.progress());
    if (refusal) throw refusal;
  }
}

/**
 * The GROUP_BEHIND of a rig whose log `progress` waits for a file, naming what waits
 * (`waitingFor.of`): an entry of the log or the group's snapshot, by its revision; null when it
 * waits for no file (nothing, or its player).
 */
export function behindRefusal(progress: GroupLog): CueportError | null {
  const { waitingFor, applied, head } = progress;
  if (!waitingFor || waitingFor.sha256 === null) return null;
  const what = waitingFor.of === "snapshot"
    ? `the group's snapshot of revision ${waitingFor.revision} waits for file ${waitingFor.sha256}, which no live rig gave it yet`
    : `entry ${waitingFor.revision} waits for imported file ${waitingFor.sha256}, which no live rig gave it yet`;
  return new CueportError(
    "GROUP_BEHIND",
    `This rig is behind the group's log (applied ${applied} of ${head}): ${what}. Edit on another rig, or bring back a rig that holds the file`,
    { ...waitingFor },
  );
}

/** What this rig's player made of an entry, once applied (TIMEOUT when it takes too long). */
async function answerOf(
  waiting: { outcome: Promise<Applied>; cancel: () => void },
): Promise<EditApplyResult> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() =>
      reject(
        new CueportError(
          "TIMEOUT",
          `The edit is in the group's log but this rig has not applied it within ${APPLIED_WITHIN_MS} ms (its player busy or away): it will be; read the Project to see it`,
        ),
      ), APPLIED_WITHIN_MS);
  });
  try {
    const applied = await Promise.race([waiting.outcome, late]);
    if ("refusal" in applied) throw applied.refusal;
    return applied.result;
  } finally {
    clearTimeout(timer);
    waiting.cancel();
  }
}

/**
 * The etcd a group's commits go to: over the JSON gateway, a client of the same members with
 * requests of their own timeout (a slow etcd is not a lost quorum); else the group's.
 */
function commitClient(group: GroupOfEdits): Etcd {
  const { endpoints } = group.status();
  if (!(group.etcd instanceof GatewayEtcd) || endpoints.length === 0) return group.etcd;
  return new GatewayEtcd(endpoints, { timeoutMs: COMMIT_REQUEST_TIMEOUT_MS });
}

/** The core's edits, as the group's log drives them (`EditRunner`). */
export interface ReplicatedRunner extends LogTarget {
  replicateTo(log: ReplicatedEdits | null): void;
}

/**
 * Sends `runner`'s edits through `group`'s log from now on and applies the log
 * from where this rig left it; the function that stops it (the runner alone again).
 */
export async function replicateEdits(
  group: GroupOfEdits,
  runner: ReplicatedRunner,
  options: Pick<ReplicatedEditsOptions, "dataDir" | "log" | "media" | "snapshotEvery">,
): Promise<() => Promise<void>> {
  const edits = new ReplicatedEdits({ ...options, group, target: runner });
  await edits.start();
  runner.replicateTo(edits);
  group.setLog?.(() => edits.progress());
  return async () => {
    group.setLog?.(null);
    runner.replicateTo(null);
    await edits.stop();
  };
}
