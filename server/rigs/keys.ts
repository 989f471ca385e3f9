/**
 * Where a rig group lives in etcd: every key under `/cueport/<group>/`, so
 * groups share an etcd without meeting (docs/rigs.md, Keys).
 * @module
 */

/** The keys of one group. */
export interface GroupKeys {
  /** `/cueport/<group>/`: the prefix of everything of the group. */
  root: string;
  /** `/cueport/<group>/rigs/`: each rig's record, under its lease. */
  rigs: string;
  /** `/cueport/<group>/election/`: each rig's campaign key, under its lease. */
  election: string;
  /** `/cueport/<group>/log/`: the edits, `log/<scope>/<n>`, applied by every rig in revision order. */
  log: string;
  /** `/cueport/<group>/heads/`: each scope's (Project's) count of entries, the txn's compare. */
  heads: string;
}

/** The keys of group `group`. */
export function groupKeys(group: string): GroupKeys {
  const root = `/cueport/${group}/`;
  return {
    root,
    rigs: `${root}rigs/`,
    election: `${root}election/`,
    log: `${root}log/`,
    heads: `${root}heads/`,
  };
}

/** The rig named by a key under `prefix`, or null when the key is not under it. */
export function rigOfKey(key: string, prefix: string): string | null {
  if (!key.startsWith(prefix)) return null;
  const rest = key.slice(prefix.length);
  return rest === "" || rest.includes("/") ? null : rest;
}
