/**
 * The imports of a rig group (docs/rigs.md, "Media between rigs"). On the
 * rig that takes a `file.import`, `shareImports` hashes the file into the
 * rig's media, announces it and waits until every live rig holds it (each
 * copies it on the announcement, `media_copies.ts`): only then does the edit
 * go to the group's log, naming the file by hash (`group-media:<sha256>`), not
 * by a path of one machine. Each rig applying the entry (`localizeImports`)
 * first makes sure it holds the file (a rig that was away copies it then),
 * and its player imports it from the rig's media.
 * @module
 */
import type { EditRequest } from "../../protocol/edits/apply.ts";
import type { LogEntry } from "../../protocol/rigs.ts";
import { CueportError } from "../core/errors.ts";
import { noQuorum } from "./edit_log.ts";
import { EtcdError, EtcdUnavailable } from "./etcd.ts";
import type { RigMedia } from "./media_copies.ts";
import { mediaRef, refOf } from "./media_files.ts";

/** How long an import waits for every live rig to hold its file, ms: 30 s and 1 s per 10 MB. */
export function copyDeadlineMs(size: number): number {
  return 30_000 + Math.ceil(size / 10_000_000) * 1000;
}

/** What waiting for the copies may be told (tests). */
export interface ShareOptions {
  /** How long to wait for every live rig, ms, for a file of `size` bytes (`copyDeadlineMs`). */
  deadlineMs?: (size: number) => number;
  /** How often etcd is asked who holds the file, ms (default 100). */
  pollMs?: number;
}

/**
 * The batch with each `file.import` naming its file by hash, once every live rig holds it.
 * @throws {CueportError} NOT_FOUND (no such file), DISK_FULL, GROUP_MEDIA_NOT_COPIED (a live rig
 * did not get it within the deadline: it names the rig)
 */
export async function shareImports<B extends { edits: EditRequest[] }>(
  media: RigMedia,
  batch: B,
  options: ShareOptions = {},
): Promise<B> {
  if (!batch.edits.some((e) => e.name === "file.import")) return batch;
  try {
    return { ...batch, edits: await shareEach(media, batch.edits, options) };
  } catch (error) {
    if (error instanceof EtcdUnavailable || error instanceof EtcdError) {
      throw noQuorum(error.message);
    }
    throw error;
  }
}

/** `shareImports` of each edit. */
async function shareEach(
  media: RigMedia,
  batch: EditRequest[],
  options: ShareOptions,
): Promise<EditRequest[]> {
  const edits: EditRequest[] = [];
  for (const edit of batch) {
    if (edit.name !== "file.import") {
      edits.push(edit);
      continue;
    }
    const params = edit.params as { path: string; name?: string };
    const { sha256, size } = await takeIn(media, params.path);
    await media.announce(sha256, size);
    await everyLiveHolds(media, sha256, (options.deadlineMs ?? copyDeadlineMs)(size), options);
    const name = params.name ?? params.path.slice(params.path.lastIndexOf("/") + 1);
    edits.push({ ...edit, params: { ...params, path: mediaRef(sha256), name } });
  }
  return edits;
}

/** Hashes the file at `path` into the rig's media. */
async function takeIn(media: RigMedia, path: string): Promise<{ sha256: string; size: number }> {
  let file: Deno.FsFile;
  try {
    await media.checkSpace((await Deno.stat(path)).size);
    file = await Deno.open(path, { read: true });
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    throw new CueportError(
      "NOT_FOUND",
      `No file at "${path}": give the path of a file on this rig`,
    );
  }
  return await media.store.receive(file.readable, { sha256: null });
}

/** Waits until every live rig of the group announced `sha256`, or its deadline. */
async function everyLiveHolds(
  media: RigMedia,
  sha256: string,
  deadlineMs: number,
  options: ShareOptions,
): Promise<void> {
  const until = performance.now() + deadlineMs;
  for (;;) {
    const holders = await media.holders(sha256);
    const missing = media.group.status().members.map((m) => m.name).filter((n) => !holders.has(n));
    if (missing.length === 0) return;
    if (performance.now() > until) {
      throw new CueportError(
        "GROUP_MEDIA_NOT_COPIED",
        `The file (SHA-256 ${sha256}) did not reach ${
          missing.join(", ")
        } within ${deadlineMs} ms: nothing was imported; look at that rig's log (its disk, its network to this rig) and import again`,
        { sha256, missing },
      );
    }
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 100));
  }
}

/**
 * The entry with each `file.import` naming this rig's copy of its file, copied first when this
 * rig lacks it (it was away, or joined later).
 * @throws when no live rig gave the file's bytes (the applier tries the entry again)
 */
export async function localizeImports(media: RigMedia, entry: LogEntry): Promise<LogEntry> {
  if (!entry.edits.some((e) => e.name === "file.import")) return entry;
  const edits: LogEntry["edits"] = [];
  for (const edit of entry.edits) {
    const params = edit.params as { path?: unknown };
    const sha256 = edit.name === "file.import" ? refOf(params.path) : null;
    if (sha256 === null) {
      edits.push(edit);
      continue;
    }
    await media.ensure(sha256);
    edits.push({ ...edit, params: { ...params, path: media.store.path(sha256) } });
  }
  return { ...entry, edits };
}
