/**
 * One recording of the output: the page's MediaRecorder sends the WebM in
 * chunks (binary frames), written as they come by `WebmFileWriter` (valid
 * at every moment, its duration in place, flushed every 2 s). This side
 * counts what the recording holds and what the page drew meanwhile, says at
 * once when no picture comes (`noPictureSince`, one log line each way), and
 * ends in a truthful outcome: a recording without a video frame failed, and
 * its empty file is removed.
 * @module
 */
import type { Recording } from "../../protocol/state.ts";
import type { ToPage } from "../../protocol/output.ts";
import { type RecordingFile, WebmFileWriter } from "./webm_writer.ts";
import { isDiskFull } from "../../lib/disk_full.ts";

/** The figures of a recording (`appState.recording` less its state and file). */
export type RecordingFigures = Pick<
  Recording,
  "bytes" | "seconds" | "videoFrames" | "framesDrawn" | "framesMissed" | "noPictureSince" | "error"
>;

/** How a recording ended: its figures, and whether its file was kept. */
export interface RecordingOutcome extends RecordingFigures {
  isFileKept: boolean;
}

/** After this long without a video frame, a recording says it gets no picture, ms. */
export const NO_PICTURE_MS = 2000;

/** The page a recording talks to. */
export interface RecordingPage {
  isOpen(): boolean;
  send(message: ToPage): void;
  /** A request answered by the page (or rejected: timed out, the output closed). */
  request<T>(build: (id: number) => ToPage): Promise<T>;
}

/** Options of an `OutputRecording`. */
export interface RecordingOptions {
  /** The file to write (WebM). */
  path: string;
  page: RecordingPage;
  log: (level: "info" | "warn", message: string) => void;
  /** The figures changed (at most once a second, and at once when the picture stops or comes back). */
  changed(figures: RecordingFigures): void;
  /** The page that recorded went away (its browser): the recording ended with it. */
  lost(outcome: RecordingOutcome): void;
  /** Opens the file (tests give one that cannot be read). */
  open?: (path: string) => RecordingFile;
  remove?: (path: string) => void;
  /** Monotonic ms, and wall ms for the times reported. */
  now?: () => number;
  wallNow?: () => number;
  /** Calls `fn` every `ms` until the returned function is called. */
  every?: (ms: number, fn: () => void) => () => void;
}

/**
 * Why a recording's file could not be written, for `appState.recording.error`: a full disk
 * names the folder whose disk is full and what to free.
 * @example
 * ```ts
 * writeFailure("/data/recordings/r.webm", enospc);
 * // "the disk of /data/recordings is full: free space on it (old recordings, unused media)"
 * ```
 */
export function writeFailure(path: string, error: unknown): string {
  if (!isDiskFull(error)) return `cannot write ${path}: ${(error as Error).message}`;
  const dir = path.slice(0, Math.max(0, path.lastIndexOf("/"))) || ".";
  return `the disk of ${dir} is full: free space on it (old recordings, unused media)`;
}

function openFile(path: string): RecordingFile {
  return Deno.openSync(path, { create: true, write: true, truncate: true });
}

function interval(ms: number, fn: () => void): () => void {
  const id = setInterval(fn, ms);
  return () => clearInterval(id);
}

/** A recording in progress: started in the page once one is connected. */
export class OutputRecording {
  readonly #options: RecordingOptions;
  readonly #writer: WebmFileWriter;
  readonly #now: () => number;
  readonly #wallNow: () => number;
  readonly #stopTicks: () => void;
  /** Whether a page was asked to record; false until one is connected. */
  #isStarted = false;
  #framesDrawn = 0;
  #framesMissed = 0;
  #lastPictureAt: number;
  #noPictureSince: string | null = null;
  #sent = "";
  /** How it ended, once it did. */
  #outcome: RecordingOutcome | null = null;

  /** Opens the file and asks the page to record, now or once it connects. */
  constructor(options: RecordingOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => performance.now());
    this.#wallNow = options.wallNow ?? Date.now;
    this.#writer = new WebmFileWriter((options.open ?? openFile)(options.path), { now: this.#now });
    this.#lastPictureAt = this.#now();
    this.#stopTicks = (options.every ?? interval)(1000, () => this.tick());
    this.#startInPage();
  }

  /** The figures now. */
  get figures(): RecordingFigures {
    return {
      ...this.#writer.figures,
      framesDrawn: this.#framesDrawn,
      framesMissed: this.#framesMissed,
      noPictureSince: this.#noPictureSince,
      error: null,
    };
  }

  /**
   * A page connected: it records if none did yet; if one did, it went away and so did this (its
   * MediaRecorder went with its document). `gone` says how, when known (`its socket closed: code
   * 1006, no close frame`): a page whose socket closed and that loaded again is not a browser
   * that went away, and the outcome does not say it was.
   */
  pageOpened(gone?: string): void {
    if (!this.#isStarted) this.#startInPage();
    else if (!this.#outcome) {
      const what = gone === undefined ? "The output's browser" : "The output's page";
      const how = gone === undefined ? "" : ` (${gone})`;
      this.#options.log(
        "warn",
        `Output: the recording ${this.#options.path} ended: ${what.toLowerCase()} went away${how}`,
      );
      this.#options.lost(this.#end({
        early: `${what} went away${how}: the recording ended there`,
        empty: `${what.toLowerCase()} went away${how} before a picture came`,
      }));
    }
  }

  /** The next bytes from the page's MediaRecorder. */
  chunk(bytes: Uint8Array): void {
    if (this.#outcome) return;
    const frames = this.#writer.figures.videoFrames;
    try {
      this.#writer.write(bytes);
    } catch (error) {
      // A full disk, a file gone: the recording ends with what was written.
      const why = writeFailure(this.#options.path, error);
      const { seconds } = this.#writer.figures;
      const kept = this.#writer.isDurationStale
        ? "; the file keeps what was written until then, but its header's duration could not be corrected"
        : `; the file keeps the ${seconds.toFixed(1)} s written until then`;
      this.#options.log("warn", `Output: the recording ${this.#options.path} ended: ${why}`);
      this.#options.lost(this.#end({
        early: `The recording failed at ${seconds.toFixed(1)} s: ${why}${kept}`,
        empty: why,
      }));
      return;
    }
    if (this.#writer.figures.videoFrames === frames) return;
    this.#lastPictureAt = this.#now();
    if (this.#noPictureSince === null) return;
    this.#options.log("info", `Output: the recording ${this.#options.path} has a picture again`);
    this.#noPictureSince = null;
    this.#emit();
  }

  /** A report of the page (every second): frames it drew and could not draw. */
  report(frames: number, dropped: number): void {
    this.#framesDrawn += frames;
    this.#framesMissed += dropped;
  }

  /** Every second: a picture missing for `NO_PICTURE_MS` is said, and the figures go out. */
  tick(): void {
    if (this.#outcome) return;
    const since = this.#now() - this.#lastPictureAt;
    if (this.#noPictureSince === null && since >= NO_PICTURE_MS) {
      this.#noPictureSince = new Date(this.#wallNow() - since).toISOString();
      this.#options.log(
        "warn",
        `Output: the recording ${this.#options.path} has had no picture for ${
          (since / 1000).toFixed(1)
        } s (${
          this.#isStarted ? `the page drew ${this.#framesDrawn} frames` : "no output page yet"
        })`,
      );
    }
    this.#emit();
  }

  /**
   * Ends the recording: the page sends its last chunk, then the file is closed. The
   * outcome says what it holds; with no video frame it failed, and its file is removed.
   */
  async stop(): Promise<RecordingOutcome> {
    if (this.#outcome) return this.#outcome;
    if (!this.#isStarted) {
      return this.#end({
        empty: "no output page was connected to record (its browser was starting)",
      });
    }
    if (this.#options.page.isOpen()) {
      try {
        await this.#options.page.request((id) => ({ type: "record-stop", id }));
      } catch (error) {
        this.#options.log("warn", `Output: the recording's last chunk did not come: ${error}`);
      }
    }
    return this.#end({
      empty: `the output page sent no picture (it drew ${this.#framesDrawn} frames meanwhile)`,
    });
  }

  /** Closes the file as it is (the output closes). */
  close(): void {
    if (!this.#outcome) this.#end({ early: "The output closed", empty: "the output closed" });
  }

  #startInPage(): void {
    if (!this.#options.page.isOpen()) return;
    this.#isStarted = true;
    this.#options.page.send({ type: "record-start", id: 0 });
  }

  /**
   * Closes the file. With no video frame in it the recording failed (`why.empty` says why)
   * and the file goes; one that ended before its stop says so (`why.early`).
   */
  #end(why: { empty: string; early?: string }): RecordingOutcome {
    if (this.#outcome) return this.#outcome;
    this.#stopTicks();
    try {
      this.#writer.close();
    } catch (error) {
      this.#options.log("warn", `Output: cannot close ${this.#options.path}: ${error}`);
    }
    const figures = { ...this.figures, noPictureSince: null };
    if (figures.videoFrames > 0) {
      this.#outcome = { ...figures, error: why.early ?? null, isFileKept: true };
    } else {
      try {
        (this.#options.remove ?? Deno.removeSync)(this.#options.path);
      } catch {
        // Not there: nothing to present either way.
      }
      this.#outcome = {
        ...figures,
        error: `Nothing was recorded: ${why.empty}`,
        isFileKept: false,
      };
    }
    return this.#outcome;
  }

  /** Sends the figures when they changed. */
  #emit(): void {
    const figures = this.figures;
    const text = JSON.stringify(figures);
    if (text === this.#sent) return;
    this.#sent = text;
    this.#options.changed(figures);
  }
}
