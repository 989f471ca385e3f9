/**
 * What a rig knows of its group's keys: the records and campaign keys, as a
 * full read left them and the watch changed them since. Pure: the group
 * (`group.ts`) feeds it; the status (`GroupStatus`) is read from it.
 * @module
 */
import { type GroupMember, RigRecord } from "../../protocol/rigs.ts";
import type { Kv, WatchEvent } from "./etcd.ts";
import { leaderKey } from "./election.ts";
import type { LeaderBeat } from "./leader_watch.ts";
import { type GroupKeys, rigOfKey } from "./keys.ts";

interface Seen {
  record: RigRecord;
  modRevision: number;
  /** `now()` when this rig saw the record change. */
  seenAt: number;
}

/** The group's keys as one rig knows them. */
export class GroupView {
  readonly #keys: GroupKeys;
  readonly #now: () => number;
  #rigs = new Map<string, Seen>();
  #campaigns = new Map<string, Kv>();
  /** The last revision applied (a full read's, or a watch batch's). */
  revision = 0;
  /** The revision of the last full read. */
  #read = 0;

  /** `now`: a monotonic clock in ms (default `performance.now`). */
  constructor(keys: GroupKeys, now: () => number = () => performance.now()) {
    this.#keys = keys;
    this.#now = now;
  }

  /** Replaces everything with a full read of the group's prefix at `revision`. */
  reset(kvs: readonly Kv[], revision: number): void {
    const before = this.#rigs;
    this.#rigs = new Map();
    this.#campaigns = new Map();
    for (const kv of kvs) {
      const old = before.get(rigOfKey(kv.key, this.#keys.rigs) ?? "");
      this.#put(kv, old?.modRevision === kv.modRevision ? old.seenAt : this.#now());
    }
    this.revision = revision;
    this.#read = revision;
  }

  /**
   * Applies a watch batch (each event a full read already covers ignored): batches of the watches
   * of `rigs/` and `election/` (disjoint keys) may come in either order.
   */
  apply(events: readonly WatchEvent[], revision: number): void {
    for (const { type, kv } of events) {
      if (kv.modRevision <= this.#read) continue;
      if (type === "put") this.#put(kv, this.#now());
      else {
        this.#rigs.delete(rigOfKey(kv.key, this.#keys.rigs) ?? "");
        this.#campaigns.delete(kv.key);
      }
    }
    this.revision = Math.max(this.revision, revision);
  }

  /** The rig that leads: the one of the oldest campaign key; null when none campaigns. */
  leader(): string | null {
    const kv = leaderKey(this.#campaigns.values());
    return kv ? rigOfKey(kv.key, this.#keys.election) : null;
  }

  /**
   * The leading rig's last heartbeat as this rig saw it (`leader_watch.ts`); null when none leads,
   * `self` does, or the leader's record is not seen.
   */
  leaderBeat(self: string): LeaderBeat | null {
    const kv = leaderKey(this.#campaigns.values());
    const rig = kv ? rigOfKey(kv.key, this.#keys.election) : null;
    const seen = this.#rigs.get(rig ?? "");
    if (!kv || rig === null || rig === self || !seen) return null;
    const recordKey = `${this.#keys.rigs}${rig}`;
    const { modRevision, seenAt } = seen;
    return { rig, lease: kv.lease, recordKey, campaignKey: kv.key, modRevision, seenAt };
  }

  /** The members, by name; `self` is the rig that asks. */
  members(self: string): GroupMember[] {
    const leader = this.leader();
    const now = this.#now();
    return [...this.#rigs.entries()].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)
      .map(([name, seen]) => ({
        ...seen.record,
        name,
        isLeader: name === leader,
        isThisRig: name === self,
        lastSeenMs: name === self ? null : Math.round(now - seen.seenAt),
      }));
  }

  #put(kv: Kv, seenAt: number): void {
    if (rigOfKey(kv.key, this.#keys.election) !== null) {
      this.#campaigns.set(kv.key, kv);
      return;
    }
    const name = rigOfKey(kv.key, this.#keys.rigs);
    if (name === null) return; // a key of a later part (edits, clock): not the view's
    const parsed = RigRecord.safeParse(safeJson(kv.value));
    if (!parsed.success) return; // a record of another version: not counted as a member
    this.#rigs.set(name, { record: parsed.data, modRevision: kv.modRevision, seenAt });
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
