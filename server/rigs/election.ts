/**
 * Leadership of a rig group with etcd's election pattern: each rig puts a
 * campaign key bound to its lease; the key with the lowest `create_revision`
 * leads. A rig whose lease runs out loses its key, so the next oldest leads;
 * when it comes back it campaigns anew, behind the others. A leader acts in
 * etcd only through `fenced(txn)`, which also compares its campaign key's
 * `create_revision`: a deposed leader's write is refused, never applied.
 * @module
 */
import type { Etcd, Kv, Txn } from "./etcd.ts";

/** This rig's campaign: its key and the revision that created it. */
export interface Campaign {
  key: string;
  createRevision: number;
}

/**
 * The key of this rig's name is held by another lease: another live rig of
 * the same name (a cloned machine: the name defaults to the host name), or
 * this rig's previous run whose lease has not run out yet. Retried at the next beat.
 */
export class RigNameInUse extends Error {
  override name = "RigNameInUse";
  /** The stable code of the group's status. */
  readonly code = "GROUP_RIG_NAME_IN_USE";
  constructor(key: string) {
    const rig = key.slice(key.lastIndexOf("/") + 1);
    super(
      `the rig name ${rig} is in use in the group under another lease (${key}): give each rig its own rigName; a rig restarted joins once its previous lease has run out`,
    );
  }
}

/**
 * Puts this rig's campaign key `key` under `lease` unless it is there (a
 * campaign of the same lease, resumed); answers the campaign.
 * @throws {RigNameInUse} when the key is there under another lease (never adopted)
 */
export async function campaign(etcd: Etcd, key: string, lease: string): Promise<Campaign> {
  const answer = await etcd.txn({
    compare: [{ key, target: "CREATE", result: "EQUAL", createRevision: 0 }],
    success: [{ put: { key, value: lease, lease } }, { range: { key } }],
    failure: [{ range: { key } }],
  });
  const kv = answer.ranges[0]?.[0];
  if (!kv) throw new Error(`Cannot campaign: the key ${key} is gone at once`);
  if (kv.lease !== lease) throw new RigNameInUse(key);
  return { key, createRevision: kv.createRevision };
}

/**
 * Writes this rig's record `value` at `key` under `lease`: rewritten while the
 * key is bound to that lease, created when there is none; the revision after it.
 * @throws {RigNameInUse} when the key is bound to another lease (left as it is)
 */
export async function putOwn(
  etcd: Etcd,
  key: string,
  value: string,
  lease: string,
): Promise<number> {
  const put = { put: { key, value, lease } };
  const own = await etcd.txn({
    compare: [{ key, target: "LEASE", result: "EQUAL", lease }],
    success: [put],
    failure: [{ range: { key } }],
  });
  if (own.succeeded) return own.revision;
  if (own.ranges[0]?.[0]) throw new RigNameInUse(key);
  const created = await etcd.txn({
    compare: [{ key, target: "CREATE", result: "EQUAL", createRevision: 0 }],
    success: [put],
    failure: [],
  });
  if (!created.succeeded) throw new RigNameInUse(key);
  return created.revision;
}

/** The campaign key that leads among `kvs` (those under the election prefix): the oldest. */
export function leaderKey(kvs: Iterable<Kv>): Kv | null {
  let leader: Kv | null = null;
  for (const kv of kvs) {
    if (leader === null || kv.createRevision < leader.createRevision) leader = kv;
  }
  return leader;
}

/**
 * `txn`, fenced by `leading`: it runs only while that campaign key still
 * exists as created (so while that rig still leads, or at least has not been
 * replaced by a campaign of its own lease's successor). When the fence fails,
 * the txn answers `succeeded: false` with nothing of `success` applied; the
 * failure branch then holds `txn.failure` followed by a range of the key.
 * @example
 * const answer = await etcd.txn(fenced({ compare: [], success: [put], failure: [] }, campaign));
 * if (!answer.succeeded) throw new Error("Not the leader any more");
 */
export function fenced(txn: Txn, leading: Campaign): Txn {
  return {
    compare: [
      {
        key: leading.key,
        target: "CREATE",
        result: "EQUAL",
        createRevision: leading.createRevision,
      },
      ...txn.compare,
    ],
    success: txn.success,
    failure: [...txn.failure, { range: { key: leading.key } }],
  };
}
