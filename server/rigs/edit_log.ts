/**
 * The writing side of a rig group's edit log (docs/rigs.md, "The show
 * replicated"): an edit is put into etcd, in a txn that compares its scope's
 * head (optimistic: a concurrent edit of the same Project makes it retry on
 * the new head) and is fenced by the campaign key of the rig that leads (a
 * deposed leader or a stale view makes it retry against the new leader),
 * before any rig applies it. Bounded: a log that keeps moving, or no leader,
 * answers an error rather than waiting on.
 * @module
 */
import type { LogEntry } from "../../protocol/rigs.ts";
import { CueportError } from "../core/errors.ts";
import { fenced, leaderKey } from "./election.ts";
import { type Etcd, EtcdError, EtcdUnavailable } from "./etcd.ts";
import type { GroupKeys } from "./keys.ts";

/** How many times a commit is tried against a moving head or a new leader. */
const COMMIT_TRIES = 20;

/** The scope of an entry: its Project, or `_library` for edits of no open Project. */
export function scopeOf(projectId: string | null): string {
  return projectId ?? "_library";
}

/** The key of entry `n` of `scope` (zero-padded: the keys sort as the entries were made). */
export function logKey(keys: GroupKeys, scope: string, n: number): string {
  return `${keys.log}${scope}/${String(n).padStart(12, "0")}`;
}

/** The error of a rig that cannot reach its group's quorum. */
export function noQuorum(why: string): CueportError {
  return new CueportError(
    "GROUP_NO_QUORUM",
    `This rig cannot reach its group's quorum (${why}): edits are refused here while the show plays on; edit on a rig that can (cueport group status), or restore this rig's network`,
  );
}

/**
 * Commits `entry` to the log of `keys`: the etcd revision of the entry.
 * @throws {CueportError} GROUP_NO_QUORUM when etcd does not answer or no rig leads;
 * UNAVAILABLE when the head kept moving for every try
 */
export async function commitEntry(etcd: Etcd, keys: GroupKeys, entry: LogEntry): Promise<number> {
  const scope = scopeOf(entry.projectId);
  const head = `${keys.heads}${scope}`;
  const value = JSON.stringify(entry);
  try {
    for (let i = 0; i < COMMIT_TRIES; i++) {
      // One read of the head and of the campaigns: the view a try is made from.
      const read = await etcd.txn({
        compare: [],
        success: [{ range: { key: head } }, { range: { key: keys.election, prefix: true } }],
        failure: [],
      });
      const [heads = [], campaigns = []] = read.ranges;
      const leader = leaderKey(campaigns);
      if (leader === null) throw noQuorum("no rig of the group leads yet");
      const at = heads[0];
      const n = (at ? Number(at.value) : 0) + 1;
      const answer = await etcd.txn(fenced({
        compare: [{ key: head, target: "MOD", result: "EQUAL", modRevision: at?.modRevision ?? 0 }],
        success: [
          { put: { key: head, value: String(n) } },
          { put: { key: logKey(keys, scope, n), value } },
        ],
        failure: [],
      }, { key: leader.key, createRevision: leader.createRevision }));
      if (answer.succeeded) return answer.revision;
    }
  } catch (error) {
    if (error instanceof EtcdUnavailable || error instanceof EtcdError) {
      throw noQuorum(error.message);
    }
    throw error;
  }
  throw new CueportError(
    "UNAVAILABLE",
    `The group's log of ${scope} moved under ${COMMIT_TRIES} tries in a row: nothing was applied; send the edit again`,
  );
}
