/**
 * Snapshots of a rig group's log (docs/rigs.md, "Snapshots and a bounded log"): the leading rig
 * writes the state its log made (its Projects) at a revision, gzipped and split in chunks under
 * etcd's request limit, publishes it with a txn fenced by its campaign key (a deposed leader's
 * snapshot is refused by etcd), then deletes the log entries it covers and compacts etcd's
 * history up to it. A rig whose kept revision is older than the snapshot's takes the snapshot,
 * then the entries after it.
 * @module
 */
import { fenced, leaderKey } from "./election.ts";
import type { Etcd, Kv } from "./etcd.ts";
import type { GroupKeys } from "./keys.ts";

/**
 * The most bytes of gzip a chunk holds: 512 KiB, 683 KiB as base64 text, 911 KiB once etcd's JSON
 * gateway encodes it again: well under etcd's default request limit of 1.5 MiB
 * (`--max-request-bytes` 1572864).
 */
export const SNAPSHOT_CHUNK_BYTES = 512 * 1024;

/** How many keys a fenced txn deletes at once (etcd's `--max-txn-ops` is 128 by default). */
const DELETES_PER_TXN = 100;

/** What `/cueport/<group>/snapshot/meta` holds: which chunks make the snapshot, and its check. */
export interface SnapshotMeta {
  /** Unique: its chunks are `snapshot/chunks/<id>/<i>`. */
  id: string;
  /** The log's revision the state is at: every entry up to it is in it, none after. */
  revision: number;
  /** The rig that wrote it (the leader then). */
  rig: string;
  /** The state's JSON, bytes, and gzipped. */
  bytes: number;
  gzipBytes: number;
  chunks: number;
  /** sha256 of the gzipped bytes, hex: a rig takes only a whole snapshot. */
  sha256: string;
}

/** A snapshot as read back: its meta and the state it holds. */
export interface Snapshot {
  meta: SnapshotMeta;
  state: unknown;
}

/** A snapshot write refused because this rig does not lead (or no longer: the fence). */
export class NotLeading extends Error {
  override name = "NotLeading";
}

/** The keys of a group's snapshot. */
export function snapshotKeys(keys: GroupKeys): { meta: string; chunks: string } {
  return { meta: `${keys.root}snapshot/meta`, chunks: `${keys.root}snapshot/chunks/` };
}

/**
 * Writes `state` as the group's snapshot at `revision`, fenced by `rig`'s campaign key: its meta.
 * @throws {NotLeading} when `rig` does not lead, or was deposed before the txn (its chunks removed)
 */
export async function writeSnapshot(
  etcd: Etcd,
  keys: GroupKeys,
  rig: string,
  revision: number,
  state: unknown,
): Promise<SnapshotMeta> {
  const where = snapshotKeys(keys);
  const json = new TextEncoder().encode(JSON.stringify(state));
  const gz = await gzip(json, "compress");
  const id = `${revision}-${crypto.randomUUID().slice(0, 8)}`;
  const meta: SnapshotMeta = {
    id,
    revision,
    rig,
    bytes: json.length,
    gzipBytes: gz.length,
    chunks: Math.max(1, Math.ceil(gz.length / SNAPSHOT_CHUNK_BYTES)),
    sha256: await sha256(gz),
  };
  const leading = await campaignOf(etcd, keys, rig);
  for (let i = 0; i < meta.chunks; i++) {
    const part = gz.subarray(i * SNAPSHOT_CHUNK_BYTES, (i + 1) * SNAPSHOT_CHUNK_BYTES);
    await etcd.put(`${where.chunks}${id}/${i}`, part.toBase64());
  }
  if (!await publish(etcd, keys, meta, leading)) {
    const mine = `${where.chunks}${id}/`;
    await etcd.txn({
      compare: [],
      success: [{ delete: { key: mine, prefix: true } }],
      failure: [],
    });
    throw new NotLeading(
      `Rig ${rig}'s snapshot at revision ${revision} was refused: it no longer leads, or a newer one was written`,
    );
  }
  return meta;
}

/**
 * Deletes the log's entries at or before `revision` (fenced by `rig`'s campaign, in txns of at
 * most 100 deletes) and compacts etcd's history up to it: the number of entries deleted.
 * @throws {NotLeading} when `rig` no longer leads
 */
export async function trimLog(
  etcd: Etcd,
  keys: GroupKeys,
  rig: string,
  revision: number,
): Promise<number> {
  const leading = await campaignOf(etcd, keys, rig);
  const covered = (await etcd.range(keys.log, { prefix: true })).kvs
    .filter((kv) => kv.modRevision <= revision);
  for (let i = 0; i < covered.length; i += DELETES_PER_TXN) {
    const batch = covered.slice(i, i + DELETES_PER_TXN);
    const answer = await etcd.txn(fenced({
      compare: [],
      success: batch.map((kv) => ({ delete: { key: kv.key } })),
      failure: [],
    }, leading));
    if (!answer.succeeded) {
      throw new NotLeading(`Rig ${rig} no longer leads: the log was not trimmed`);
    }
  }
  await etcd.compact?.(revision);
  return covered.length;
}

/** The group's snapshot, or null when none was written. @throws {Error} when it is not whole */
export async function readSnapshot(etcd: Etcd, keys: GroupKeys): Promise<Snapshot | null> {
  const where = snapshotKeys(keys);
  const kv = (await etcd.range(where.meta)).kvs[0];
  const meta = kv ? metaOf(kv) : null;
  if (meta === null) return null;
  const parts = (await etcd.range(`${where.chunks}${meta.id}/`, { prefix: true })).kvs
    .map((c) => ({
      i: Number(c.key.slice(c.key.lastIndexOf("/") + 1)),
      bytes: Uint8Array.fromBase64(c.value),
    }))
    .sort((a, b) => a.i - b.i);
  const gz = new Uint8Array(parts.reduce((n, p) => n + p.bytes.length, 0));
  let at = 0;
  for (const p of parts) {
    gz.set(p.bytes, at);
    at += p.bytes.length;
  }
  if (parts.length !== meta.chunks || await sha256(gz) !== meta.sha256) {
    throw new Error(
      `The group's snapshot ${meta.id} is not whole (${parts.length} of ${meta.chunks} chunks, or its sha256 differs): read it again`,
    );
  }
  const json = new TextDecoder().decode(await gzip(gz, "decompress"));
  return { meta, state: JSON.parse(json) };
}

/** The meta of the group's snapshot alone (no chunks read), or null. */
export async function readSnapshotMeta(etcd: Etcd, keys: GroupKeys): Promise<SnapshotMeta | null> {
  const kv = (await etcd.range(snapshotKeys(keys).meta)).kvs[0];
  return kv ? metaOf(kv) : null;
}

/**
 * Puts `meta` as the group's snapshot (fenced by `leading`; the previous one's chunks deleted)
 * unless the meta moved meanwhile or a newer one is there: whether it did.
 */
async function publish(
  etcd: Etcd,
  keys: GroupKeys,
  meta: SnapshotMeta,
  leading: { key: string; createRevision: number },
): Promise<boolean> {
  const where = snapshotKeys(keys);
  const old = (await etcd.range(where.meta)).kvs[0];
  const previous = old ? metaOf(old) : null;
  if (previous !== null && previous.revision >= meta.revision) return false; // never over a newer
  const answer = await etcd.txn(fenced({
    compare: [{
      key: where.meta,
      target: "MOD",
      result: "EQUAL",
      modRevision: old?.modRevision ?? 0,
    }],
    success: [
      { put: { key: where.meta, value: JSON.stringify(meta) } },
      ...(previous ? [{ delete: { key: `${where.chunks}${previous.id}/`, prefix: true } }] : []),
    ],
    failure: [],
  }, leading));
  return answer.succeeded;
}

/** `rig`'s campaign when it leads now. @throws {NotLeading} otherwise */
async function campaignOf(etcd: Etcd, keys: GroupKeys, rig: string) {
  const leader = leaderKey((await etcd.range(keys.election, { prefix: true })).kvs);
  if (leader === null || leader.key !== `${keys.election}${rig}`) {
    throw new NotLeading(`Rig ${rig} does not lead: only the leader writes the group's snapshot`);
  }
  return { key: leader.key, createRevision: leader.createRevision };
}

/** The snapshot meta a key holds, or null when it is not one. */
export function metaOf(kv: Kv): SnapshotMeta | null {
  try {
    const meta = JSON.parse(kv.value) as SnapshotMeta;
    return typeof meta.id === "string" && Number.isFinite(meta.revision) ? meta : null;
  } catch {
    return null;
  }
}

async function gzip(
  bytes: Uint8Array<ArrayBuffer>,
  how: "compress" | "decompress",
): Promise<Uint8Array<ArrayBuffer>> {
  const stream = new Blob([bytes]).stream().pipeThrough(
    how === "compress" ? new CompressionStream("gzip") : new DecompressionStream("gzip"),
  );
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

async function sha256(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}
