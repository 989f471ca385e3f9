/**
 * Kept copies: each save of a file of the data dir keeps the previous good
 * versions beside it (`project.json.1` newest .. `project.json.3` oldest), so
 * a file found damaged at start is served from the newest good copy instead.
 *
 * Used by `atomic_write.ts` (`AtomicWriteHooks.keep`) in its two phases:
 * before any rename, `prepareKeep` makes a hard link of the current file (a
 * copy when the file system has no hard links); then `rotateKept` shifts the
 * generations and renames the link into `.1`, all renames, before the new
 * file is renamed over the target. The target is therefore never missing,
 * and a full disk fails in the first phase, with nothing changed.
 * @module
 */

/** Generations kept of the files saved now and then (project, presets, settings, devices). */
export const KEEP_GENERATIONS = 3;

/**
 * Generations kept of `live.json`, written up to 10 times a second. Cost per write (2 KB,
 * no fsync, best of 8 rounds of 500 awaited writes on ext4, the busy 2-core VM, two runs):
 * 344-432 us without kept copies, 420-713 us with 2 (a link and two more renames): at 10
 * writes a second, under 7 ms a second, mostly in the kernel. Its newest copy is then
 * one write (100 ms of a show) older than the file.
 */
export const KEEP_LIVE_GENERATIONS = 2;

/** The path of kept generation `n` (1 = newest) of `path`. */
export function keptPath(path: string, n: number): string {
  return `${path}.${n}`;
}

/**
 * Phase one: a temp name beside `path` that holds its current content (a hard
 * link, or a copy where links fail), or null when `path` does not exist yet.
 * The temp's name ends like `atomic_write.ts`'s temps, so a crash leaves it to
 * `removeStaleTemps`. `link` is the hard-link call (tests hand one that fails).
 */
export async function prepareKeep(
  path: string,
  link: (from: string, to: string) => Promise<void> = Deno.link,
): Promise<string | null> {
  const temp = `${keptPath(path, 1)}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  try {
    await link(path, temp);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    // No hard links here (some FUSE, SMB or FAT mounts): a copy costs the bytes, once.
    try {
      await Deno.copyFile(path, temp);
    } catch (copyError) {
      if (copyError instanceof Deno.errors.NotFound) return null;
      await Deno.remove(temp).catch(() => {});
      throw copyError;
    }
  }
  return temp;
}

/** `prepareKeep`, synchronously (a last write at shutdown). */
export function prepareKeepSync(path: string): string | null {
  const temp = `${keptPath(path, 1)}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  try {
    Deno.linkSync(path, temp);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    try {
      Deno.copyFileSync(path, temp);
    } catch (copyError) {
      if (copyError instanceof Deno.errors.NotFound) return null;
      throw copyError;
    }
  }
  return temp;
}

/**
 * Phase two: `.N-1` -> `.N` ... `.1` -> `.2`, then `kept` (from `prepareKeep`) -> `.1`.
 * Only renames: they take no new space. A generation that is missing is skipped.
 */
export async function rotateKept(path: string, kept: string, keep: number): Promise<void> {
  for (let n = keep - 1; n >= 1; n--) {
    await Deno.rename(keptPath(path, n), keptPath(path, n + 1)).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    });
  }
  await Deno.rename(kept, keptPath(path, 1));
}

/** `rotateKept`, synchronously. */
export function rotateKeptSync(path: string, kept: string, keep: number): void {
  for (let n = keep - 1; n >= 1; n--) {
    try {
      Deno.renameSync(keptPath(path, n), keptPath(path, n + 1));
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  Deno.renameSync(kept, keptPath(path, 1));
}

/** The name a damaged file is moved to for the operator: `<path>.damaged-<stamp>`. */
export function damagedPath(path: string, at: Date): string {
  return `${path}.damaged-${at.toISOString().replace(/[:.]/g, "-")}`;
}
