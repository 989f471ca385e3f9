/**
 * The recording the output writes, if any (`recording.ts`), and the page connection that
 * records it: only that page's chunks are the recording's, and a recording started before any
 * page connected starts in the first that does.
 * @module
 */
import { describeClose } from "./page_socket.ts";
import type { SocketClose } from "./socket_guard.ts";
import {
  OutputRecording,
  type RecordingFigures,
  type RecordingOutcome,
  type RecordingPage,
} from "./recording.ts";

/** Options of `RecordingSlot`. */
export interface RecordingSlotOptions {
  /** The page connected now, and its connection number (`PageSocket.connection`). */
  page: RecordingPage & {
    connection(): number | null;
    /** The last page socket that closed, and how (`PageSocket.lastClose`); absent: unknown. */
    lastClose?(): { connection: number; how: SocketClose } | null;
  };
  log: (level: "info" | "warn" | "error", message: string) => void;
  /** A recording ended because the browser that recorded it went away. */
  lost?: (outcome: RecordingOutcome) => void;
}

/** The output's one recording at a time. */
export class RecordingSlot {
  #options: RecordingSlotOptions;
  /** The recording being written. */
  #recording: OutputRecording | null = null;
  /** The page connection that records it, null until one does. */
  #owner: number | null = null;

  /** No recording yet. */
  constructor(options: RecordingSlotOptions) {
    this.#options = options;
  }

  /** Starts recording the page's picture and sound into `path` (WebM). */
  start(path: string, changed: (figures: RecordingFigures) => void): void {
    const { page, log } = this.#options;
    const recording: OutputRecording = new OutputRecording({
      path,
      page,
      log,
      changed,
      lost: (outcome) => {
        if (this.#recording === recording) this.#recording = null;
        this.#options.lost?.(outcome);
      },
    });
    this.#recording = recording;
    // Started in the page connected now, if one is (`OutputRecording` asks it at once).
    this.#owner = page.connection();
  }

  /** Ends the recording once the page's last chunk is written: what it holds. */
  async stop(): Promise<RecordingOutcome | null> {
    const recording = this.#recording;
    if (!recording) return null;
    try {
      return await recording.stop();
    } finally {
      if (this.#recording === recording) this.#recording = null;
    }
  }

  /**
   * A page connected: a recording waiting for one starts in it; one that another page recorded
   * ended with that page (gone: a page is connected only once the one before closed).
   */
  pageOpened(connection: number): void {
    const recording = this.#recording;
    if (!recording) return;
    const owner = this.#owner;
    if (owner !== null && owner !== connection) {
      this.#options.log(
        "warn",
        `Output: the page that recorded (socket #${owner}) is gone; page socket #${connection} connected`,
      );
    }
    this.#owner = owner ?? connection;
    // How the page that recorded went away, when its socket's close is known.
    const gone = this.#options.page.lastClose?.();
    recording.pageOpened(
      owner !== null && gone?.connection === owner
        ? `its socket closed: ${describeClose(gone.how)}`
        : undefined,
    );
  }

  /** Bytes of the recording from page `connection`: only the page that records writes its file. */
  chunk(bytes: Uint8Array, connection: number): void {
    if (connection === this.#owner) this.#recording?.chunk(bytes);
  }

  /** The page's frame report: the recording counts the frames drawn and dropped. */
  report(frames: number, dropped: number): void {
    this.#recording?.report(frames, dropped);
  }

  /** Ends the recording at once (the output closes). */
  close(): void {
    this.#recording?.close();
    this.#recording = null;
  }
}
