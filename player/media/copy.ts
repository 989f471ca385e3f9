/**
 * Copying a large file without holding anything up: chunks of 1 MiB through
 * one reused buffer (the event loop answers requests between them), a sync
 * about every half second of disk work (so no final fsync of gigabytes leaves
 * a long silence), progress at most every 100 ms, and a stop when the caller
 * aborts. The copy goes to a hidden `.partial` name that `removePartials`
 * clears at start, so an interrupted copy never shows up as media.
 * @module
 */

/** Bytes read and written per step. */
const CHUNK_BYTES = 1024 * 1024;
/**
 * How long one sync should take, ms: the bytes between syncs follow the
 * disk's measured rate so each takes about this long (a slow disk syncs more
 * often). A sync is a silence in the progress reports that clients watch;
 * without syncs the kernel may hold gigabytes for one final fsync. Measured on a 2-core VM copying a 4 GiB
 * sparse file (noisy disk, a few runs each): one sync at the end 5.3-11.9 s
 * (0.65-0.85 s of it in that sync), a sync every 32 MiB 21 s, every 64 MiB
 * 9.9-10.2 s, every 256 MiB 7.7-8.8 s, this rule 4.9-12.4 s; `dd bs=1M
 * conv=fsync` 9.3-12.3 s.
 */
const SYNC_TARGET_MS = 500;
/** Bytes between syncs: at least, before the first (no measure yet), and at most. */
const SYNC_BYTES = { min: 8 * 1024 * 1024, first: 64 * 1024 * 1024, max: 1024 * 1024 * 1024 };
/** Least time between two progress reports, ms. */
const REPORT_MS = 100;

/** Matches the names `partialName` makes: `.import-<8 hex>.partial`. */
const PARTIAL = /^\.import-[0-9a-f]{8}\.partial$/;

/** Hidden name of the partial copy of job `jobId` (`import-<8 hex>`). */
export function partialName(jobId: string): string {
  return `.${jobId}.partial`;
}

/** Options of `copyFile`. */
export interface CopyOptions {
  /** The size measured before the copy; a source that ends sooner or grows is refused. */
  size: number;
  /** Called with the bytes copied so far, at most every 100 ms and once at the end. */
  onProgress?: (bytes: number) => void;
  /** Stops the copy; the target is removed. */
  signal?: AbortSignal;
}

/** Raised when the source changed size while it was copied. */
export class SourceChangedError extends Error {
  /** How the size changed, in lower case, to follow a colon. */
  readonly detail: string;
  /** Builds the error; `detail` says how the size changed. */
  constructor(detail: string) {
    super(`File changed while it was copied (${detail})`);
    this.name = "SourceChangedError";
    this.detail = detail;
  }
}

/**
 * Copies `from` to the new file `to` (never overwriting), synced when it
 * resolves. On any failure `to` is removed before the error is rethrown.
 * @throws {SourceChangedError} when the source ended early or grew
 * @throws {DOMException} AbortError when `signal` aborted
 */
export async function copyFile(from: string, to: string, options: CopyOptions): Promise<void> {
  const target = await Deno.open(to, { write: true, createNew: true });
  try {
    await using source = await Deno.open(from, { read: true });
    const buffer = new Uint8Array(CHUNK_BYTES);
    let copied = 0;
    let synced = 0;
    let syncBytes = SYNC_BYTES.first;
    let reportedAt = performance.now();
    options.onProgress?.(0);
    while (copied < options.size) {
      options.signal?.throwIfAborted();
      const n = await source.read(buffer.subarray(0, Math.min(CHUNK_BYTES, options.size - copied)));
      if (n === null) {
        throw new SourceChangedError(`ended after ${copied} of ${options.size} bytes`);
      }
      for (let written = 0; written < n;) {
        written += await target.write(buffer.subarray(written, n));
      }
      copied += n;
      if (copied - synced >= syncBytes) {
        const started = performance.now();
        await target.syncData();
        const rate = (copied - synced) / Math.max(performance.now() - started, 1);
        syncBytes = Math.min(Math.max(rate * SYNC_TARGET_MS, SYNC_BYTES.min), SYNC_BYTES.max);
        synced = copied;
      }
      const now = performance.now();
      if (now - reportedAt >= REPORT_MS) {
        reportedAt = now;
        options.onProgress?.(copied);
      }
    }
    options.signal?.throwIfAborted();
    const { size } = await source.stat();
    if (size !== options.size) {
      throw new SourceChangedError(`went from ${options.size} to ${size} bytes`);
    }
    await target.sync();
    options.onProgress?.(copied);
  } catch (error) {
    target.close();
    await Deno.remove(to).catch(() => {});
    throw error;
  }
  target.close();
}

/** Removes partial copies an interrupted import left in `mediaDir`; returns how many. */
export async function removePartials(mediaDir: string): Promise<number> {
  let removed = 0;
  try {
    for await (const entry of Deno.readDir(mediaDir)) {
      if (entry.isFile && PARTIAL.test(entry.name)) {
        await Deno.remove(`${mediaDir}/${entry.name}`);
        removed++;
      }
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return removed;
}

/** Fsyncs a folder so a rename in it is on disk; some file systems refuse, which is harmless. */
export async function syncDir(dir: string): Promise<void> {
  if (Deno.build.os === "windows") return;
  try {
    await using handle = await Deno.open(dir, { read: true });
    await handle.sync();
  } catch {
    // the rename is atomic either way
  }
}
