/**
 * Crash-safe file writes, used by the player (projects) and the server (auth
 * data): write a temp file beside the target, fsync it,
 * rename it over the target, fsync the folder (`writeFilesAtomic`: all the
 * temps first, then the renames). A crash at any point leaves
 * either the old or the new file, never a half-written one. With
 * `skipFsync`, the same holds for a killed process but not for a power cut.
 * With `keep`, the previous versions are kept beside the target
 * (`kept_copies.ts`), and the target is never missing meanwhile.
 * @module
 */
import { prepareKeep, prepareKeepSync, rotateKept, rotateKeptSync } from "./kept_copies.ts";

/** Hooks for tests to simulate a crash between the steps, and the file mode. */
export interface AtomicWriteHooks {
  /** Called for each temp file once all are written and synced, before the first rename. */
  beforeRename?: (tempPath: string) => void;
  /** Permission bits of the new file (default 0o644; 0o600 for secrets). */
  mode?: number;
  /**
   * Skips both fsyncs (file and folder). The rename is still atomic, and the
   * kernel keeps what was written when the process dies, so a `kill -9`
   * still leaves the old or the new file whole; only a power cut or kernel
   * crash may lose or truncate it. For files that guard against process death
   * and are rewritten often (the player's live state), where an fsync per
   * write costs milliseconds of disk time for nothing.
   */
  skipFsync?: boolean;
  /**
   * Keeps this many previous versions of each target (`<path>.1` newest), hard
   * links made before the renames (`kept_copies.ts`); 0 or absent: none.
   */
  keep?: number;
}

function dirname(path: string): string {
  const i = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  return i <= 0 ? "." : path.slice(0, i);
}

/** Writes `data` to `path` atomically; creates the folder if needed. */
export async function writeFileAtomic(
  path: string,
  data: Uint8Array | string,
  hooks: AtomicWriteHooks = {},
): Promise<void> {
  await writeFilesAtomic([{ path, data }], hooks);
}

/** One file of `writeFilesAtomic`. */
export interface FileWrite {
  path: string;
  data: Uint8Array | string;
}

/**
 * Writes several files in two phases: every temp file is written and synced
 * first, then each is renamed over its target (a rename takes no new space).
 * A temp that cannot be written (a full disk) removes them all and throws with
 * no target changed. A crash between the renames can leave some targets new
 * and the others old, each of them whole.
 */
export async function writeFilesAtomic(
  files: readonly FileWrite[],
  hooks: AtomicWriteHooks = {},
): Promise<void> {
  const temps: string[] = [];
  const kept: (string | null)[] = [];
  const keep = hooks.keep ?? 0;
  try {
    for (const { path, data } of files) temps.push(await writeTemp(path, data, hooks));
    if (keep > 0) { for (const { path } of files) kept.push(await prepareKeep(path)); }
    for (const temp of temps) hooks.beforeRename?.(temp);
    for (const [i, temp] of temps.entries()) {
      const path = files[i]!.path;
      const old = kept[i];
      if (old) await rotateKept(path, old, keep);
      await Deno.rename(temp, path);
    }
  } catch (error) {
    // A full disk fails a write: the temps go too, so they hold no space.
    for (const temp of [...temps, ...kept]) if (temp) await Deno.remove(temp).catch(() => {});
    throw error;
  }
  if (hooks.skipFsync) return;
  for (const dir of new Set(files.map((f) => dirname(f.path)))) await syncDir(dir);
}

/** Writes and syncs a temp file beside `path`; on a failure, removes it and throws. */
async function writeTemp(
  path: string,
  data: Uint8Array | string,
  hooks: AtomicWriteHooks,
): Promise<string> {
  await Deno.mkdir(dirname(path), { recursive: true });
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const temp = `${path}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  const file = await Deno.open(temp, { write: true, createNew: true, mode: hooks.mode ?? 0o644 });
  try {
    let written = 0;
    while (written < bytes.length) written += await file.write(bytes.subarray(written));
    if (!hooks.skipFsync) await file.sync();
  } catch (error) {
    file.close();
    await Deno.remove(temp).catch(() => {});
    throw error;
  }
  file.close();
  return temp;
}

/**
 * `writeFileAtomic` without awaiting: for a last write at shutdown, where
 * finishing within the current task matters more than not blocking.
 */
export function writeFileAtomicSync(
  path: string,
  data: Uint8Array | string,
  hooks: AtomicWriteHooks = {},
): void {
  const dir = dirname(path);
  Deno.mkdirSync(dir, { recursive: true });
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const temp = `${path}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  const file = Deno.openSync(temp, { write: true, createNew: true, mode: hooks.mode ?? 0o644 });
  let kept: string | null = null;
  try {
    try {
      let written = 0;
      while (written < bytes.length) written += file.writeSync(bytes.subarray(written));
      if (!hooks.skipFsync) file.syncSync();
    } finally {
      file.close();
    }
    if ((hooks.keep ?? 0) > 0) kept = prepareKeepSync(path);
    hooks.beforeRename?.(temp);
    if (kept) rotateKeptSync(path, kept, hooks.keep!);
    Deno.renameSync(temp, path);
  } catch (error) {
    for (const name of kept ? [temp, kept] : [temp]) {
      try {
        Deno.removeSync(name);
      } catch {
        // already gone
      }
    }
    throw error;
  }
  if (!hooks.skipFsync) syncDirSync(dir);
}

/** Writes JSON (two-space indented) atomically. */
export function writeJsonAtomic(
  path: string,
  value: unknown,
  hooks: AtomicWriteHooks = {},
): Promise<void> {
  return writeFileAtomic(path, jsonText(value), hooks);
}

/** The text `writeJsonAtomic` writes: two-space indented JSON and a newline. */
export function jsonText(value: unknown): string {
  return JSON.stringify(value, null, 2) + "\n";
}

async function syncDir(dir: string): Promise<void> {
  if (Deno.build.os === "windows") return; // folders cannot be opened for sync there
  try {
    const handle = await Deno.open(dir, { read: true });
    try {
      await handle.sync();
    } finally {
      handle.close();
    }
  } catch {
    // Some file systems refuse fsync on folders; the rename is still atomic.
  }
}

function syncDirSync(dir: string): void {
  if (Deno.build.os === "windows") return;
  try {
    const handle = Deno.openSync(dir, { read: true });
    try {
      handle.syncSync();
    } finally {
      handle.close();
    }
  } catch {
    // As in syncDir.
  }
}

/** Removes temp files a crash left behind in `dir` (names ending `.tmp`). */
export async function removeStaleTemps(dir: string): Promise<number> {
  let removed = 0;
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isFile && /\.[0-9a-f]{8}\.tmp$/.test(entry.name)) {
        await Deno.remove(`${dir}/${entry.name}`);
        removed++;
      }
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return removed;
}
