/**
 * The records of the group's media in etcd (`/cueport/<group>/media/<sha256>/<rig>`): a rig
 * that holds a file says so with its size (`{size}`), one that could not copy it with the
 * error's code (`{error: "DISK_FULL"}`); at start a rig announces what it holds and withdraws
 * its records of files it does not hold (`media_copies.ts`).
 * @module
 */

import type { GroupKeys } from "./keys.ts";
import type { Etcd, Kv } from "./etcd.ts";
import type { MediaStore } from "./media_store.ts";

/** What the records need of a rig's media (`RigMedia`). */
export interface RecordedMedia {
  readonly rig: string;
  readonly group: { readonly etcd: Etcd; readonly keys: GroupKeys };
  readonly store: MediaStore;
  announce(sha256: string, size: number): Promise<void>;
}

/** The key prefix of the announcements of the holders of `sha256` (every file's without). */
export function mediaPrefix(keys: GroupKeys, sha256 = ""): string {
  return `${keys.root}media/${sha256 === "" ? "" : `${sha256}/`}`;
}

/** Announces what this rig holds; withdraws its records of files it does not hold (any more). */
export async function announceHeld(media: RecordedMedia, kvs: Kv[]): Promise<void> {
  const prefix = mediaPrefix(media.group.keys);
  const held = new Set(await media.store.list());
  const announced = new Set<string>();
  for (const kv of kvs) {
    const [sha256, rig] = kv.key.slice(prefix.length).split("/");
    if (rig !== media.rig || !sha256) continue;
    if (held.has(sha256) && !("error" in recordOf(kv))) announced.add(sha256);
    else if (!held.has(sha256)) await withdraw(media, kv);
  }
  for (const sha256 of held) {
    if (!announced.has(sha256)) await media.announce(sha256, (await media.store.size(sha256)) ?? 0);
  }
}

/** Removes this rig's file `sha256` and its record (an import that failed brought it). */
export async function discardHeld(media: RecordedMedia, sha256: string): Promise<void> {
  await Deno.remove(media.store.path(sha256)).catch(() => {});
  const key = `${mediaPrefix(media.group.keys, sha256)}${media.rig}`;
  await media.group.etcd.txn({ compare: [], success: [{ delete: { key } }], failure: [] });
}

/** Deletes the record `kv` of this rig, unless it changed since it was read. */
async function withdraw(media: RecordedMedia, kv: Kv): Promise<void> {
  await media.group.etcd.txn({
    compare: [{ key: kv.key, target: "VALUE", result: "EQUAL", value: kv.value }],
    success: [{ delete: { key: kv.key } }],
    failure: [],
  });
}

/** What a record of a file says: held, with its size (0 when unreadable), or an error's code. */
export function recordOf(kv: Kv): { size: number } | { error: string } {
  try {
    const record = JSON.parse(kv.value) as { size?: unknown; error?: unknown };
    if (typeof record.error === "string") return { error: record.error };
    return { size: typeof record.size === "number" ? record.size : 0 };
  } catch {
    return { size: 0 };
  }
}
