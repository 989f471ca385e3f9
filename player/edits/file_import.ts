/**
 * Bringing a media file into a Project's `media/` folder, in two steps so
 * the slow one holds nothing up. `stageImport` measures the file from its
 * bytes (unsupported or corrupt files are refused before anything is
 * written), then copies it (or moves it, for an upload already on this disk)
 * to a hidden `.partial` name; it runs beside other requests. `placeImport`
 * renames it to a safe name that never overwrites another file; it runs in
 * the commit. An interrupted copy is never seen as media: its partial file is
 * removed on failure, and at the next start if the player died.
 * @module
 */
import type { MediaFile } from "../../protocol/model.ts";
import { DELIBERATE, RpcErrorCode } from "../../protocol/jsonrpc.ts";
import { GROUP_MEDIA_DIR } from "../../protocol/rigs.ts";
import { isDiskFull } from "../../lib/disk_full.ts";
import { sanitizeFileName } from "../../lib/file_names.ts";
import { Refusal } from "../errors.ts";
import { copyFile, partialName, SourceChangedError, syncDir } from "../media/copy.ts";
import type { MediaInfo } from "../media/probe.ts";
import { probeFile } from "../media/probe_file.ts";
import { missing } from "./draft.ts";

/** A file measured and copied under its partial name, waiting to be placed. */
export interface StagedImport {
  readonly jobId: string;
  /** The name asked for, sanitized; the stored one may gain " (2)". */
  readonly name: string;
  readonly mediaDir: string;
  /** Where the bytes are until `placeImport`. */
  readonly partialPath: string;
  readonly info: MediaInfo & { size: number };
}

/** A file measured and named, not yet copied. */
export interface MeasuredImport {
  readonly path: string;
  readonly name: string;
  readonly info: MediaInfo & { size: number };
}

/** Options of `stageImport`. */
export interface StageOptions {
  /** The Project's `media/` folder. */
  mediaDir: string;
  /** `import-<8 hex>`; names the partial file. */
  jobId: string;
  /** Move instead of copy (the source is a staging file of an upload). */
  isMove: boolean;
  /** Called as bytes are copied. */
  onProgress?: (bytes: number) => void;
  /** Stops the copy; the partial file is removed. */
  signal?: AbortSignal;
}

/**
 * Checks the name and measures the file at `path` (header reads only).
 * @throws {Refusal} INVALID_PARAMS for a bad name, NOT_FOUND, the media codes
 */
export async function measureImport(path: string, name: string): Promise<MeasuredImport> {
  const safe = sanitizeFileName(name);
  if ("error" in safe) {
    throw new Refusal(`Invalid name: ${safe.error}`, RpcErrorCode.INVALID_PARAMS);
  }
  return { path, name: safe.name, info: await probeFile(path) };
}

/**
 * Copies (or moves) a measured file to its partial name in `media/`.
 * @throws {Refusal} when the file changed while it was copied or cannot be read
 * @throws {DOMException} AbortError when `signal` aborted
 */
export async function stageImport(
  measured: MeasuredImport,
  options: StageOptions,
): Promise<StagedImport> {
  const { path, info } = measured;
  await makeMediaDir(options.mediaDir);
  const partialPath = `${options.mediaDir}/${partialName(options.jobId)}`;
  const staged = { jobId: options.jobId, name: measured.name, mediaDir: options.mediaDir };
  if (await linkedFromGroup(path, partialPath)) {
    options.onProgress?.(info.size);
    return { ...staged, partialPath, info };
  }
  if (options.isMove) {
    try {
      await Deno.rename(path, partialPath);
      options.onProgress?.(info.size);
      return { ...staged, partialPath, info };
    } catch {
      // Another disk (or a vanished file, which the copy reports): copy instead.
    }
  }
  try {
    await copyFile(path, partialPath, {
      size: info.size,
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    if (options.signal?.aborted || error instanceof Refusal) throw error;
    if (error instanceof SourceChangedError) {
      throw new Refusal(
        `Cannot import "${path}": it changed while it was copied (${error.detail})`,
      );
    }
    if (error instanceof Deno.errors.NotFound) throw missing(`No file at "${path}"`);
    // A full disk is answered DISK_FULL (`rpc_server.ts`), with what to free.
    if (isDiskFull(error)) throw error;
    // A failing disk is the show machine's problem, not the request's.
    throw new Refusal(
      `Cannot import "${path}": ${(error as Error).message}`,
      RpcErrorCode.INTERNAL_ERROR,
      DELIBERATE,
    );
  }
  return { ...staged, partialPath, info };
}

/**
 * A rig group's file (`<dataDir>/group-media/<sha256>`, docs/rigs.md "Media between rigs"): named
 * by its content, written once under a temp name and renamed, never changed in place. Linked, not
 * copied, it is held once on disk.
 */
const GROUP_FILE = new RegExp(`(^|[\\\\/])${GROUP_MEDIA_DIR}[\\\\/][0-9a-f]{64}$`);
/** Whether the log said how a group's files come into the Projects (said once). */
let isLinkSaid = false;

/**
 * Hard-links a rig group's file at `path` to the new name `to` (one file on disk, two names:
 * removing either leaves the other's bytes): false when `path` is not one, or the two are on
 * different filesystems (or one without hard links: then copied, said once in the log).
 */
async function linkedFromGroup(path: string, to: string): Promise<boolean> {
  if (!GROUP_FILE.test(path)) return false;
  try {
    await Deno.link(path, to);
  } catch (error) {
    if (!isLinkSaid && !(error instanceof Deno.errors.NotFound)) {
      console.error(
        `[player] info: group media copied into the Projects, not linked (${
          (error as Error).message
        }): each file is on disk twice; put group-media/ and projects/ on one filesystem`,
      );
      isLinkSaid = true;
    }
    return false;
  }
  if (!isLinkSaid) {
    console.error(
      "[player] info: group media hard-linked into the Projects: each file once on disk",
    );
    isLinkSaid = true;
  }
  return true;
}

/**
 * Creates a Project's `media/` folder, never its Project folder: one that is gone (deleted
 * while the import was measured) is not made again as a partial Project.
 * @throws {Refusal} NOT_FOUND when the Project folder is gone
 */
async function makeMediaDir(mediaDir: string): Promise<void> {
  try {
    await Deno.mkdir(mediaDir);
  } catch (error) {
    if (error instanceof Deno.errors.AlreadyExists) return;
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    const folder = mediaDir.slice(0, mediaDir.lastIndexOf("/"));
    throw missing(
      `Cannot import into ${folder}: the Project's folder is gone (deleted or replaced meanwhile)`,
    );
  }
}

/**
 * Gives a staged file its name in `media/`: the name asked for, or with
 * " (2)", " (3)"... until one is free (a hard link claims a name atomically;
 * where links are not supported, a name seen free is taken by a rename).
 * Returns its entry for the Project.
 */
export async function placeImport(staged: StagedImport, id: string): Promise<MediaFile> {
  const { name, mediaDir, partialPath, info } = staged;
  const dot = name.lastIndexOf(".");
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ""];
  let stored = name;
  for (let n = 2;; n++) {
    if (await claim(partialPath, `${mediaDir}/${stored}`)) break;
    stored = `${stem} (${n})${ext}`;
  }
  await syncDir(mediaDir);
  return {
    id,
    kind: info.kind,
    name: stored,
    path: `media/${stored}`,
    mimeType: info.mimeType,
    size: info.size,
    width: info.width,
    height: info.height,
    duration: info.duration,
  };
}

/** Moves `from` to `to` unless `to` exists; false when it does. */
async function claim(from: string, to: string): Promise<boolean> {
  try {
    await Deno.link(from, to);
  } catch (error) {
    if (error instanceof Deno.errors.AlreadyExists) return false;
    // No hard links here (FAT, some network shares): check, then rename.
    try {
      await Deno.lstat(to);
      return false;
    } catch (statError) {
      if (!(statError instanceof Deno.errors.NotFound)) throw statError;
    }
    await Deno.rename(from, to);
    return true;
  }
  await Deno.remove(from);
  return true;
}

/** Removes a staged file that will not be placed. */
export async function discardImport(staged: StagedImport): Promise<void> {
  await Deno.remove(staged.partialPath).catch(() => {});
}
