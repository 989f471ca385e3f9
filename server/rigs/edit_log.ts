/**
 * The writing side of a rig group's edit log (docs/rigs.md, "The show
 * replicated"): an edit is put into etcd, in a txn that compares its scope's
 * head (optimistic: a concurrent edit of the same Project makes it retry on
 * the new head) and is fenced by the campaign key of the rig that leads (a
 * deposed leader or a stale view makes it retry against the new leader),
 * before any rig applies it. Bounded: a log that keeps moving, or no leader,
 * answers an error rather than waiting on.
 *
 * A commit tells the truth: a txn whose answer was lost (etcd slow, a member
 * gone) may have been applied, so it is sent again as it was (the same head
 * compare and fence: at most one of the two can land) or its outcome is read
 * back (the entry's id at its log key), until it is known or
 * `COMMIT_DEADLINE_MS` has passed: then `GROUP_OUTCOME_UNKNOWN`, never a
 * refusal for an edit that may be in. A keyed edit (`Idempotency-Key`) also
 * creates `keys/<client/key>` in the same txn, only if absent: its retry on
 * any rig finds the first entry instead of committing again.
 * @module
 */
import type { LogEntry } from "../../protocol/rigs.ts";
import { CueportError } from "../core/errors.ts";
import { IDEMPOTENCY_LIMITS } from "../core/idempotency.ts";
import { fenced, leaderKey } from "./election.ts";
import { type Etcd, EtcdError, EtcdUnavailable, type Kv } from "./etcd.ts";
import type { GroupKeys } from "./keys.ts";

/** How many times a commit is tried against a moving head or a new leader. */
const COMMIT_TRIES = 20;

/**
 * How long a commit may take to learn whether its entry is in, ms: an etcd
 * that is slow under load is waited for this long (its requests have a timeout
 * of their own, `COMMIT_REQUEST_TIMEOUT_MS`), not answered as "no quorum".
 */
export const COMMIT_DEADLINE_MS = 6000;

/** The timeout of each etcd request of a commit, ms (the heartbeat's is a quarter of the lease). */
export const COMMIT_REQUEST_TIMEOUT_MS = 2000;

/** The pause before a commit's request that was not answered is sent again, ms. */
const RESEND_PAUSE_MS = 100;

/** A keyed edit's key in etcd lives at least this long (the service's window, 10 min), s. */
export const KEY_SECONDS = 600;

/** A new lease for keys every this long, ms: a key lives between KEY_SECONDS and that plus this. */
export const KEY_LEASE_EVERY_MS = 60_000;

/**
 * The longest a keyed edit's key lives in etcd after its commit, ms (its lease granted at most
 * `KEY_LEASE_EVERY_MS` before): a keyed entry's answer is kept as long (`snapshot_keeper.ts`).
 */
export const KEY_LIFE_MS = KEY_SECONDS * 1000 + KEY_LEASE_EVERY_MS;

/** The most keyed entries whose answers a rig and its snapshots keep: the service's own bound. */
export const KEYS_KEPT = IDEMPOTENCY_LIMITS.maxKeys;

/** The scope of an entry: its Project, or `_library` for edits of no open Project. */
export function scopeOf(projectId: string | null): string {
  return projectId ?? "_library";
}

/** The key of entry `n` of `scope` (zero-padded: the keys sort as the entries were made). */
export function logKey(keys: GroupKeys, scope: string, n: number): string {
  return `${keys.log}${scope}/${String(n).padStart(12, "0")}`;
}

/** The key a keyed edit's client key is kept at (`client/key`, made safe for a key). */
export function retryKeyOf(keys: GroupKeys, key: string): string {
  return `${keys.root}keys/${encodeURIComponent(key)}`;
}

/** The error of a rig that cannot reach its group's quorum. */
export function noQuorum(why: string): CueportError {
  return new CueportError(
    "GROUP_NO_QUORUM",
    `This rig cannot reach its group's quorum (${why}): edits are refused here while the show plays on; edit on a rig that can (cueport group status), or restore this rig's network`,
  );
}

/** The error of a commit whose outcome stayed unknown past its deadline. */
export function outcomeUnknown(entry: LogEntry, keys: GroupKeys, why: string): CueportError {
  return new CueportError(
    "GROUP_OUTCOME_UNKNOWN",
    `The edit may or may not be in the group's log (${why}): it is entry ${entry.id}; read the Project to see whether it was applied (or look for that id under ${keys.log}${
      scopeOf(entry.projectId)
    }/ in etcd) before sending it again, or send it again with the same Idempotency-Key`,
  );
}

/** A keyed edit's key: its etcd key's name (`client/key`) and what was asked with it. */
export interface CommitKey {
  key: string;
  /** What was asked (a hash of kind and body): the same key for something else is refused. */
  fingerprint: string;
  /** The lease the key is kept under (it goes with it). */
  lease: string;
}

/** Where the edit is in the log: its entry's id (an earlier entry's for a keyed retry) and revision. */
export interface Commit {
  id: string;
  revision: number;
}

/**
 * Commits `entry` to the log of `keys`: the etcd revision of the entry.
 * @throws {CueportError} GROUP_NO_QUORUM when etcd does not answer before anything may have
 * been written, or no rig leads; GROUP_OUTCOME_UNKNOWN; UNAVAILABLE when the head kept moving
 */
export async function commitEntry(etcd: Etcd, keys: GroupKeys, entry: LogEntry): Promise<number> {
  return (await commitOnce(etcd, keys, entry)).revision;
}

/**
 * Commits `entry` once: its place in the log, or, for a `key` already used, the first entry's.
 * @throws {CueportError} as `commitEntry`; IDEMPOTENCY_KEY_REUSED for a key used for other edits
 */
export function commitOnce(
  etcd: Etcd,
  keys: GroupKeys,
  entry: LogEntry,
  options: { key?: CommitKey; deadlineMs?: number } = {},
): Promise<Commit> {
  return new Committer(etcd, keys, entry, options).run();
}

/** A try sent whose answer was lost: it may land while the head and the leader stay as it saw them. */
interface Pending {
  n: number;
  headRevision: number;
  leaderRevision: number;
}

/** What a try is made from, read in one txn. */
interface View {
  heads: Kv[];
  campaigns: Kv[];
  /** The log key of the try whose answer was lost, or of the try that failed. */
  logged: Kv[] | undefined;
  /** The keyed edit's record. */
  held: Kv[] | undefined;
}

/** One commit of one entry. */
class Committer {
  readonly #head: string;
  readonly #scope: string;
  readonly #deadline: number;
  #pending: Pending | null = null;
  #view: View | null = null;
  #problem = "";

  constructor(
    readonly etcd: Etcd,
    readonly keys: GroupKeys,
    readonly entry: LogEntry,
    readonly options: { key?: CommitKey; deadlineMs?: number },
  ) {
    this.#scope = scopeOf(entry.projectId);
    this.#head = `${keys.heads}${this.#scope}`;
    this.#deadline = performance.now() + (options.deadlineMs ?? COMMIT_DEADLINE_MS);
  }

  async run(): Promise<Commit> {
    for (let tries = 0; tries < COMMIT_TRIES || this.#pending;) {
      if (performance.now() > this.#deadline) break;
      try {
        const found = await this.#try();
        if (found) return found;
        tries++;
      } catch (error) {
        if (!(error instanceof EtcdUnavailable || error instanceof EtcdError)) throw error;
        // Nothing may have been written: the truth is a refusal.
        if (!this.#pending) throw noQuorum(error.message);
        this.#problem = error.message;
        await new Promise((resolve) => setTimeout(resolve, RESEND_PAUSE_MS));
      }
    }
    if (this.#pending) throw outcomeUnknown(this.entry, this.keys, this.#problem);
    // Every try's outcome known, none in: a busy log (or a slow one), not a lost quorum.
    throw new CueportError(
      "UNAVAILABLE",
      `The group's log of ${this.#scope} moved under every try (up to ${COMMIT_TRIES} in ${
        this.options.deadlineMs ?? COMMIT_DEADLINE_MS
      } ms): nothing was applied; send the edit again`,
    );
  }

  /**
   * One txn made from the view (read first, unless the last try's failure read it): the
   * commit when it is known to be in, else null (the view for the next try kept).
   */
  async #try(): Promise<Commit | null> {
    const key = this.options.key && retryKeyOf(this.keys, this.options.key.key);
    const view = this.#view ?? await this.#read(key);
    this.#view = null;
    const known = this.#known(view.logged, view.held);
    if (known) return known;
    const leader = leaderKey(view.campaigns);
    const at = view.heads[0];
    const headRevision = at?.modRevision ?? 0;
    // The try whose answer was lost can land only while the head and the leader are as it saw them.
    const pending = this.#pending;
    if (
      pending &&
      (pending.headRevision !== headRevision || leader?.createRevision !== pending.leaderRevision)
    ) this.#pending = null;
    if (leader === null) throw noQuorum("no rig of the group leads yet");
    const n = (at ? Number(at.value) : 0) + 1;
    const sent: Pending = { n, headRevision, leaderRevision: leader.createRevision };
    const answer = await this.#send(sent, leader.key, key).catch((error) => {
      if (error instanceof EtcdUnavailable) this.#pending = sent;
      throw error;
    });
    if (answer.succeeded) {
      this.#pending = null;
      return { id: this.entry.id, revision: answer.revision };
    }
    // The failure branch read the view the next try is made from: one round trip a try.
    const [heads = [], campaigns = [], logged = [], ...rest] = answer.ranges;
    this.#view = { heads, campaigns, logged, held: key ? rest[0] : undefined };
    return this.#known(logged, this.#view.held);
  }

  /** The view a try is made from: the head, the campaigns, a lost try's log key, the key's record. */
  async #read(key: string | undefined): Promise<View> {
    const pending = this.#pending;
    const read = await this.etcd.txn({
      compare: [],
      success: [
        { range: { key: this.#head } },
        { range: { key: this.keys.election, prefix: true } },
        ...(pending ? [{ range: { key: logKey(this.keys, this.#scope, pending.n) } }] : []),
        ...(key ? [{ range: { key } }] : []),
      ],
      failure: [],
    });
    const [heads = [], campaigns = [], ...more] = read.ranges;
    return {
      heads,
      campaigns,
      logged: pending ? more[0] : undefined,
      held: key ? more.at(-1) : undefined,
    };
  }

  /** The txn of one try: the entry at `n` if the head and the leader are as seen (and the key new). */
  #send(sent: Pending, leader: string, key: string | undefined) {
    const { keys, entry, options } = this;
    const at = logKey(keys, this.#scope, sent.n);
    const held = options.key && { id: entry.id, fingerprint: options.key.fingerprint };
    return this.etcd.txn(fenced({
      compare: [
        { key: this.#head, target: "MOD", result: "EQUAL", modRevision: sent.headRevision },
        ...(key
          ? [{ key, target: "CREATE" as const, result: "EQUAL" as const, createRevision: 0 }]
          : []),
      ],
      success: [
        { put: { key: this.#head, value: String(sent.n) } },
        { put: { key: at, value: JSON.stringify(entry) } },
        ...(key && held
          ? [{ put: { key, value: JSON.stringify(held), lease: options.key!.lease } }]
          : []),
      ],
      failure: [
        { range: { key: this.#head } },
        { range: { key: keys.election, prefix: true } },
        { range: { key: at } },
        ...(key ? [{ range: { key } }] : []),
      ],
    }, { key: leader, createRevision: sent.leaderRevision }));
  }

  /** The commit known from a log key read back or the key's record, else null. */
  #known(logged: Kv[] | undefined, held: Kv[] | undefined): Commit | null {
    const own = logged?.[0];
    if (own && (JSON.parse(own.value) as LogEntry).id === this.entry.id) {
      this.#pending = null;
      return { id: this.entry.id, revision: own.modRevision };
    }
    const kept = held?.[0];
    if (!kept) return null;
    const first = JSON.parse(kept.value) as { id: string; fingerprint: string };
    this.#pending = null;
    if (first.fingerprint !== this.options.key?.fingerprint) {
      throw new CueportError(
        "IDEMPOTENCY_KEY_REUSED",
        "This Idempotency-Key was already used for a different request: use a new key for each request",
      );
    }
    // The key and its entry were put by one txn: the entry's revision is the key's.
    return { id: first.id, revision: kept.createRevision };
  }
}
