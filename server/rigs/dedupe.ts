/**
 * One action sent to every rig runs once (docs/rigs.md, "One action sent to every rig"): a desk
 * that sends the same GO to the main and the backup rig ("OSC sent to all") would otherwise have
 * each rig put its copy into the group, and the GO run twice on every rig. Copies that carry the
 * same key (an HTTP `Idempotency-Key`, a WebSocket `idempotencyKey`, an OSC bundle's timetag with
 * its sender) get one entry id, derived from the key and the action; each rig writes its copy
 * with a create-only txn, so exactly one is written, and the others are answered with it.
 * @module
 */
import { createHash } from "node:crypto";
import type { NormalizedAction } from "../../protocol/actions.ts";
import type { Etcd } from "./etcd.ts";

/**
 * The group entry id of an action that carries a client's key: the same on every rig for the
 * same key and action (a key reused for another action is another entry).
 */
export function dedupeId(key: string, action: NormalizedAction): string {
  const hash = createHash("sha256").update(key).update("\n").update(JSON.stringify(action));
  return `k.${hash.digest("hex").slice(0, 32)}`;
}

/**
 * Writes `value` at `key` under `lease` only when no copy is there yet (a txn comparing the key's
 * `create_revision` with 0).
 * @returns null when this copy was written, else the value of the copy written first
 */
export async function putOnce(
  etcd: Etcd,
  key: string,
  value: string,
  lease: string,
): Promise<string | null> {
  const answer = await etcd.txn({
    compare: [{ key, target: "CREATE", result: "EQUAL", createRevision: 0 }],
    success: [{ put: { key, value, lease } }],
    failure: [{ range: { key } }],
  });
  if (answer.succeeded) return null;
  return answer.ranges[0]?.[0]?.value ?? value;
}

/**
 * Whether a dedupe key names a sender, not one action (`~osc.<address>`: an OSC message outside a
 * timetagged bundle): its copies are deduped by `putUnlessCopy`, within a window.
 */
export function isSenderKey(key: string): boolean {
  return key.startsWith("~");
}

/**
 * Writes a sender's action's entry at `key` (one key per sender and action: `dedupeId`) unless the entry there
 * is one this is a copy of (`isCopyOf`: another rig's, for about the same show time, not claimed
 * by this rig yet): a desk's GO sent to every rig without a key runs once. Anything else there is
 * an earlier action: this one replaces it (a txn on its revision).
 * @returns null when this entry was written, else the value of the entry it is a copy of
 */
export async function putUnlessCopy(
  etcd: Etcd,
  key: string,
  entry: { value: string; lease: string },
  isCopyOf: (value: string) => boolean,
): Promise<string | null> {
  const put = { put: { key, value: entry.value, lease: entry.lease } };
  for (let attempt = 0; attempt < 3; attempt++) {
    const answer = await etcd.txn({
      compare: [{ key, target: "CREATE", result: "EQUAL", createRevision: 0 }],
      success: [put],
      failure: [{ range: { key } }],
    });
    if (answer.succeeded) return null;
    const kv = answer.ranges[0]?.[0];
    if (kv === undefined) continue; // its lease ran out meanwhile
    if (isCopyOf(kv.value)) return kv.value;
    const replaced = await etcd.txn({
      compare: [{ key, target: "MOD", result: "EQUAL", modRevision: kv.modRevision }],
      success: [put],
      failure: [],
    });
    if (replaced.succeeded) return null;
    // another rig wrote meanwhile (perhaps this action's copy): look again
  }
  throw new Error("the action's key kept changing: not written");
}
