/**
 * The imports of a rig group (docs/rigs.md, "Media between rigs"). On the
 * rig that takes a `file.import`, `shareImports` has its player probe the
 * file (junk is refused there, as alone), then hashes it into the
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
import { discardHeld } from "./media_records.ts";
import { pause } from "./_pause.ts";

/** Files taken in at once at most on this rig (as the player's `MAX_IMPORTING`). */
const MAX_TAKING = 4;
let taking = 0;
/** Per file, the imports of this process sharing it now: a failed one leaves it to the others. */
const sharing = new Map<string, number>();

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
  /** Ends the wait (the client left); the rig's stop ends it too. */
  signal?: AbortSignal;
}

/**
 * The batch with each `file.import` naming its file by hash, once every live rig holds it; each
 * file is probed by this rig's player first (`RigMedia.probe`), so one it would refuse is refused
 * before any copy.
 * @throws {CueportError} NOT_FOUND (no such file), UNSUPPORTED_MEDIA, CORRUPT_MEDIA (the
 * player's refusal, as alone), DISK_FULL (here, or on a live rig: it names
 * it), GROUP_MEDIA_NOT_COPIED (a live rig did not get it within the deadline: it names the rig),
 * UNAVAILABLE (too many imports at once; the rig stopped or the client left meanwhile)
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
  const held = new Set(await media.store.list());
  const taken: string[] = [];
  try {
    for (const edit of batch) {
      if (edit.name !== "file.import") {
        edits.push(edit);
        continue;
      }
      const params = edit.params as { path: string; name?: string };
      // Its player refuses junk here, as alone: nothing is copied, nothing goes to etcd.
      await media.probe(params.path);
      const { sha256, size } = await takeIn(media, params.path);
      taken.push(sha256);
      sharing.set(sha256, (sharing.get(sha256) ?? 0) + 1);
      await media.announce(sha256, size);
      await everyLiveHolds(media, sha256, (options.deadlineMs ?? copyDeadlineMs)(size), options);
      const name = params.name ?? params.path.split(/[\\/]/).pop()!;
      edits.push({ ...edit, params: { ...params, path: mediaRef(sha256), name } });
    }
    return edits;
  } catch (error) {
    // Nothing in the log names a file this failed import brought: it goes (this rig's copy and
    // record; a rig that copied it meanwhile keeps its copy).
    for (const sha256 of taken) {
      if (!held.has(sha256) && sharing.get(sha256) === 1) {
        await discardHeld(media, sha256).catch(() => {});
      }
    }
    throw error;
  } finally {
    for (const sha256 of taken) {
      const n = (sharing.get(sha256) ?? 1) - 1;
      if (n > 0) sharing.set(sha256, n);
      else sharing.delete(sha256);
    }
  }
}

/**
 * Hashes the file at `path` into the rig's media, `MAX_TAKING` at once at most.
 * @throws {CueportError} UNAVAILABLE when as many are being taken in
 */
async function takeIn(media: RigMedia, path: string): Promise<{ sha256: string; size: number }> {
  if (taking >= MAX_TAKING) {
    throw new CueportError(
      "UNAVAILABLE",
      `Too many imports at once: ${taking} are being copied into the group's media; send this one when one has finished`,
    );
  }
  taking++;
  try {
    return await takeInNow(media, path);
  } finally {
    taking--;
  }
}

/** `takeIn` once its turn is taken. */
async function takeInNow(media: RigMedia, path: string): Promise<{ sha256: string; size: number }> {
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
  const signal = AbortSignal.any([media.stopped, ...(options.signal ? [options.signal] : [])]);
  for (;;) {
    const { holders, failed } = await media.records(sha256);
    const live = media.group.status().members.map((m) => m.name);
    const missing = live.filter((n) => !holders.has(n));
    if (missing.length === 0) return;
    const refused = missing.find((rig) => failed.has(rig));
    if (refused !== undefined) throw copyFailed(sha256, refused, failed.get(refused)!);
    if (performance.now() > until) {
      throw new CueportError(
        "GROUP_MEDIA_NOT_COPIED",
        `The file (SHA-256 ${sha256}) did not reach ${
          missing.join(", ")
        } within ${deadlineMs} ms: nothing was imported; look at that rig's log (its disk, its network to this rig) and import again`,
        { sha256, missing },
      );
    }
    await pause(options.pollMs ?? 100, signal);
    if (signal.aborted) {
      throw new CueportError(
        "UNAVAILABLE",
        `The import stopped while it waited for ${missing.join(", ")} to copy its file (${
          media.stopped.aborted ? "this rig stopped" : "the client left"
        }): nothing was imported`,
      );
    }
  }
}

/** The error of a live rig that recorded it could not copy `sha256` (`{error: code}`). */
function copyFailed(sha256: string, rig: string, code: string): CueportError {
  if (code === "DISK_FULL") {
    return new CueportError(
      "DISK_FULL",
      `Rig ${rig} has no room for the file (SHA-256 ${sha256}): nothing was imported; free space on that rig's data disk and import again`,
      { sha256, rig },
    );
  }
  return new CueportError(
    "GROUP_MEDIA_NOT_COPIED",
    `Rig ${rig} could not copy the file (SHA-256 ${sha256}: ${code}): nothing was imported; look at that rig's log and import again`,
    { sha256, missing: [rig] },
  );
}

/** A log entry's file this rig does not hold and could not copy yet. */
export class MediaMissing extends Error {
  override name = "MediaMissing";
  /** The file's SHA-256. */
  readonly sha256: string;
  /** Why it was not copied. */
  constructor(sha256: string, cause: unknown) {
    super((cause as Error).message, { cause });
    this.sha256 = sha256;
  }
}

/**
 * The entry with each `file.import` naming this rig's copy of its file, copied first when this
 * rig lacks it (it was away, or joined later).
 * @throws {MediaMissing} when no live rig gave the file's bytes (the applier tries again)
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
    await media.ensure(sha256).catch((error) => {
      throw new MediaMissing(sha256, error);
    });
    edits.push({ ...edit, params: { ...params, path: media.store.path(sha256) } });
  }
  return { ...entry, edits };
}
