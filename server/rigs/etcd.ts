/**
 * The etcd a rig group uses, as one small interface: what the group's
 * membership and election use now, and the edit replication and the show
 * clock will use next (docs/rigs.md). `etcd_gateway.ts` implements it over
 * etcd's JSON gateway; tests may hand the group their own.
 * @module
 */

/** One key of etcd, its value decoded as UTF-8. */
export interface Kv {
  key: string;
  value: string;
  /** The revision that created the key (the election orders campaigns by it). */
  createRevision: number;
  modRevision: number;
  /** The lease the key is bound to ("0": none). */
  lease: string;
}

/** One comparison of a txn (etcd's `Compare`). */
export type Compare =
  | { key: string; target: "CREATE"; result: CompareResult; createRevision: number }
  | { key: string; target: "MOD"; result: CompareResult; modRevision: number }
  | { key: string; target: "VALUE"; result: CompareResult; value: string }
  | { key: string; target: "LEASE"; result: CompareResult; lease: string };

/** How a comparison compares. */
export type CompareResult = "EQUAL" | "GREATER" | "LESS" | "NOT_EQUAL";

/** One operation of a txn's branch. */
export type TxnOp =
  | { put: { key: string; value: string; lease?: string } }
  | { delete: { key: string; prefix?: boolean } }
  | { range: { key: string; prefix?: boolean } };

/** A txn: when every comparison holds, `success` runs, else `failure`, atomically. */
export interface Txn {
  compare: Compare[];
  success: TxnOp[];
  failure: TxnOp[];
}

/** What a txn answered: which branch ran, the revision after it, the ranges' keys in order. */
export interface TxnAnswer {
  succeeded: boolean;
  revision: number;
  ranges: Kv[][];
}

/** One change seen by a watch. */
export interface WatchEvent {
  type: "put" | "delete";
  kv: Kv;
}

/** Options of a watch. */
export interface WatchOptions {
  /** The first revision to deliver (0: from now). */
  fromRevision: number;
  /** Told each batch of events, in revision order. */
  onEvents: (events: WatchEvent[], revision: number) => void;
  /** Ends the watch. */
  signal: AbortSignal;
  /**
   * Told when the watch's next revision was compacted away (its events are lost): the watch goes
   * on from the oldest revision etcd still has; a caller that must miss nothing reads again.
   */
  onCompacted?: (compactRevision: number) => void;
}

/**
 * The etcd of a group: every call is answered by a quorum (linearizable),
 * or rejects with `EtcdUnavailable` when no member answered in time.
 */
export interface Etcd {
  /** The member talked to now (the client moves to the next when one does not answer). */
  readonly endpoint: string;
  /** The keys at `key` (with `prefix`: every key under it), sorted by key. */
  range(key: string, options?: { prefix?: boolean }): Promise<{ kvs: Kv[]; revision: number }>;
  /** Puts `value` at `key`, bound to `lease` when given; the revision after it. */
  put(key: string, value: string, lease?: string): Promise<number>;
  /** Runs a txn; it is sent once (an unknown outcome rejects, it is never retried). */
  txn(txn: Txn): Promise<TxnAnswer>;
  /** Grants a lease of `ttlSeconds`; its id. */
  grant(ttlSeconds: number): Promise<string>;
  /** Renews `lease`; the seconds it has left, 0 when it has expired (its keys are gone). */
  keepAlive(lease: string): Promise<number>;
  /** Revokes `lease` (its keys are deleted at once). */
  revoke(lease: string): Promise<void>;
  /** Watches every key under `prefix` until the signal aborts; resolves when the watch ends. */
  watch(prefix: string, options: WatchOptions): Promise<void>;
  /** Compacts etcd's history up to `revision` (the keys stay; older revisions go). */
  compact?(revision: number): Promise<void>;
}

/** No member of etcd answered in time (the quorum may be lost): retry later. */
export class EtcdUnavailable extends Error {
  override name = "EtcdUnavailable";
}

/** Etcd refused the request (a lease not found, a bad request): retrying the same fails the same. */
export class EtcdError extends Error {
  override name = "EtcdError";
  /** The gRPC status code etcd answered (5: not found...). */
  readonly code: number;
  constructor(message: string, code: number) {
    super(message);
    this.code = code;
  }
}
