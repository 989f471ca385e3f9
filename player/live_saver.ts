/**
 * Keeps one JSON file up to date with a state that changes often (the
 * player's live state), without ever holding up the code that changes it:
 * `markDirty()` only sets a flag and, at most once, a timer. The state is
 * built and written later, off the caller's path; one write is in flight at
 * a time, and changes made meanwhile go out as one more write of the latest
 * state when it ends, at least `gapMs` after the previous write began. A
 * write that fails (a full disk) is tried again every `retryMs` until one
 * succeeds, with one log line when saves start failing and one when they
 * work again: the state is not lost and the log is not flooded.
 * @module
 */
import { writeFileAtomic, writeFileAtomicSync } from "../lib/atomic_write.ts";

/** Options of a `LiveSaver`. */
export interface LiveSaverOptions {
  /** The file to keep; replaced atomically (temp + rename), without fsync. */
  path: string;
  /** The state to write, as it is now. */
  build: () => unknown;
  /** Least time between the starts of two writes, ms. */
  gapMs: number;
  /** Where a failed write is reported (once until a write succeeds again). */
  log?: (message: string) => void;
  /** Wait before a failed write is tried again, ms (default 1000). */
  retryMs?: number;
  /** Previous versions kept beside the file (`lib/kept_copies.ts`); default none. */
  keep?: number;
  /**
   * The state's text apart from what is not worth a write alone (the live state's time stamp),
   * or null when the state is to be written anyway: a write whose key equals that of the last
   * write that succeeded is skipped, the file holding that state already (issue 42).
   * `flush()` and `close()` always write.
   */
  stillKey?: (state: unknown) => string | null;
}

/**
 * Writes a state to a file soon after it changes, coalescing changes.
 *
 * @example
 * ```ts
 * const saver = new LiveSaver({ path: "/tmp/live.json", build: () => state, gapMs: 50 });
 * saver.markDirty(); // returns at once; the file follows shortly
 * await saver.close(); // writes the final state
 * ```
 */
export class LiveSaver {
  #options: LiveSaverOptions;
  #isDirty = false;
  #isClosed = false;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #writing: Promise<void> | null = null;
  #lastStart = -Infinity;
  /** Writes have failed since the last that succeeded: the next failure is not logged. */
  #isFailing = false;
  /** `stillKey` of the last write that succeeded; null when none, or its file is not known. */
  #lastKey: string | null = null;

  /** A saver of `options.build()` to `options.path`; nothing is written until a change. */
  constructor(options: LiveSaverOptions) {
    this.#options = options;
  }

  /** Notes that the state changed; cheap enough to call on every change. */
  markDirty(): void {
    if (this.#isDirty || this.#isClosed) return;
    this.#isDirty = true;
    if (this.#writing === null) this.#arm();
  }

  /** Writes the state now (after a write in flight) and waits for it. */
  async flush(): Promise<void> {
    while (this.#writing !== null) await this.#writing;
    this.#disarm();
    this.#write(true);
    await this.#writing;
  }

  /**
   * Writes the final state; later changes are not saved. The write is
   * synchronous (after a write in flight, if any), so a closing player is
   * done within the task that closes it. With `keep`, it is written twice, so
   * its newest kept copy holds the final state as well.
   */
  async close(): Promise<void> {
    const wasClosed = this.#isClosed;
    this.#isClosed = true;
    this.#disarm();
    while (this.#writing !== null) await this.#writing;
    if (wasClosed) return;
    try {
      const text = JSON.stringify(this.#options.build());
      const hooks = { skipFsync: true, keep: this.#options.keep ?? 0 };
      writeFileAtomicSync(this.#options.path, text, hooks);
      // Twice with kept copies: the newest copy is then the final state too, so a file
      // damaged while the player was stopped loses nothing (one more write, at close only).
      if (hooks.keep > 0) writeFileAtomicSync(this.#options.path, text, hooks);
    } catch (error) {
      this.#isFailing = false; // the last write: it is not tried again
      this.#report(error);
    }
  }

  #arm(): void {
    const gap = this.#isFailing ? this.#options.retryMs ?? 1000 : this.#options.gapMs;
    const wait = Math.max(0, this.#lastStart + gap - performance.now());
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#write();
    }, wait);
  }

  #disarm(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }

  /** Writes the state, unless (and not `isForced`) its `stillKey` is the last written's. */
  #write(isForced = false): void {
    this.#isDirty = false;
    this.#lastStart = performance.now();
    let text: string;
    let key: string | null;
    try {
      const state = this.#options.build();
      key = this.#options.stillKey?.(state) ?? null;
      if (!isForced && key !== null && key === this.#lastKey) return;
      text = JSON.stringify(state);
    } catch (error) {
      this.#report(error);
      return;
    }
    const hooks = { skipFsync: true, keep: this.#options.keep ?? 0 };
    this.#lastKey = null; // until this write succeeds, the file may hold either state
    this.#writing = writeFileAtomic(this.#options.path, text, hooks)
      .then(() => {
        this.#lastKey = key;
        if (!this.#isFailing) return;
        this.#isFailing = false;
        this.#options.log?.("The live state is saved again");
      }, (error) => {
        // Not lost: written again later, the latest state then.
        this.#isDirty = true;
        if (this.#isFailing) return;
        this.#isFailing = true;
        this.#report(error);
      })
      .finally(() => {
        this.#writing = null;
        if (this.#isDirty && !this.#isClosed) this.#arm();
      });
  }

  #report(error: unknown): void {
    const retry = this.#isFailing ? " (tried again until it works)" : "";
    this.#options.log?.(`Cannot save the live state: ${(error as Error).message}${retry}`);
  }
}
