/**
 * Writes the WebM the browser's MediaRecorder streams into a file that is a
 * valid WebM at every moment, with its duration in the header: when the
 * header arrives (EBML header, Segment, Info), the Info is written again
 * with a Duration element (room made once), and as chunks come the duration
 * is written in place (a seek and 8 bytes). The file is never read back.
 * What is written is flushed to disk (`syncData`) at least every 2 s, so a
 * player killed mid-recording, or a machine that loses power, leaves a file
 * that plays up to about its last second, and says how long it is.
 *
 * It counts as the chunks stream through: bytes, video frames (blocks of
 * the video track) and seconds (the time of the last block).
 * @module
 */
import { Buffer } from "node:buffer";
import { infoWithDuration, WebmReader } from "./webm_reader.ts";

/**
 * The file a recording goes into: writes, seeks and flushes, no reads
 * (a `Deno.FsFile` is one).
 */
export interface RecordingFile {
  writeSync(bytes: Uint8Array): number;
  seekSync(offset: number, whence: Deno.SeekMode): number;
  syncDataSync(): void;
  close(): void;
}

/** How often written data is flushed to disk at least, ms. */
export const SYNC_EVERY_MS = 2000;

/** What the file holds so far. */
export interface WebmFigures {
  bytes: number;
  /** The time of the last block (video or sound): how long the file plays. */
  seconds: number;
  videoFrames: number;
}

/** Most header bytes kept while waiting for the Info; past that the stream is written as it is. */
const MAX_HEADER = 1 << 20;

/**
 * Streams a recording into `file`.
 * @example
 * const writer = new WebmFileWriter(Deno.openSync(path, { create: true, write: true }));
 * socket.onmessage = (e) => writer.write(new Uint8Array(e.data));
 * // ... later
 * writer.close();
 */
export class WebmFileWriter {
  readonly #file: RecordingFile;
  readonly #now: () => number;
  readonly #reader = new WebmReader();
  /** The stream's first bytes, held until the Info is whole; null once written. */
  #head: Uint8Array[] | null = [];
  #headBytes = 0;
  /** File offset of the Duration's float; null when the stream had no Info to give one. */
  #durationAt: number | null = null;
  #scale = 1_000_000;
  #segmentSize: { at: number; length: number } | null = null;
  #videoTracks = new Set<number>();
  #bytes = 0;
  #lastMs = 0;
  #durationMs = -1;
  #videoFrames = 0;
  #syncedAt: number;
  #isDirty = false;

  /** `now` (ms, monotonic) paces the flushes. */
  constructor(file: RecordingFile, options: { now?: () => number } = {}) {
    this.#file = file;
    this.#now = options.now ?? (() => performance.now());
    this.#syncedAt = this.#now();
  }

  /** What the file holds so far. */
  get figures(): WebmFigures {
    return { bytes: this.#bytes, seconds: this.#lastMs / 1000, videoFrames: this.#videoFrames };
  }

  /** Writes the next bytes of the stream, then the duration they reach, flushing when due. */
  write(chunk: Uint8Array): void {
    let isWritten = false;
    for (const event of this.#reader.push(chunk)) {
      if (event.kind === "segment") {
        this.#segmentSize = { at: event.sizeAt, length: event.sizeLength };
      } else if (event.kind === "tracks") this.#videoTracks = new Set(event.video);
      else if (event.kind === "block") {
        if (this.#videoTracks.has(event.track)) this.#videoFrames++;
        this.#lastMs = Math.max(this.#lastMs, event.ms);
      } else if (event.kind === "info" && this.#head) {
        this.#scale = event.timecodeScale;
        this.#writeHead(chunk, event);
        isWritten = true;
      }
    }
    if (isWritten) {
      // The head went out with this chunk.
    } else if (!this.#head) this.#append(chunk);
    else {
      this.#head.push(chunk);
      this.#headBytes += chunk.length;
      // Not the WebM expected: written as it comes, without a duration.
      if (this.#reader.isLost || this.#headBytes > MAX_HEADER) this.#writeHeadAsIs();
    }
    this.#writeDuration();
    if (this.#now() - this.#syncedAt >= SYNC_EVERY_MS) this.flush();
  }

  /** Flushes what was written to disk now. */
  flush(): void {
    this.#syncedAt = this.#now();
    if (!this.#isDirty) return;
    this.#isDirty = false;
    this.#file.syncDataSync();
  }

  /** Writes what is held, the last duration, flushes, and closes the file. */
  close(): void {
    if (this.#head) this.#writeHeadAsIs();
    this.#writeDuration();
    this.flush();
    this.#file.close();
  }

  /**
   * The head (the chunks so far, `chunk` last) with the Info given a Duration, and the
   * Segment's size made unknown (its length may change; MediaRecorder's already is).
   */
  #writeHead(chunk: Uint8Array, info: { start: number; end: number; element: Uint8Array }) {
    const stream = Buffer.concat([...this.#head!, chunk]);
    this.#head = null;
    const { bytes, durationAt } = infoWithDuration(info.element);
    const before = stream.slice(0, info.start);
    const size = this.#segmentSize;
    if (size && size.at + size.length <= info.start) {
      // All ones after the length marker: unknown.
      before[size.at] = 0xff >> (size.length - 1);
      before.fill(0xff, size.at + 1, size.at + size.length);
    }
    this.#append(before);
    this.#durationAt = this.#bytes + durationAt;
    this.#append(bytes);
    this.#append(stream.subarray(info.end));
  }

  #writeHeadAsIs(): void {
    const head = this.#head ?? [];
    this.#head = null;
    this.#append(Buffer.concat(head));
  }

  #append(bytes: Uint8Array): void {
    let at = 0;
    while (at < bytes.length) at += this.#file.writeSync(bytes.subarray(at));
    this.#bytes += bytes.length;
    this.#isDirty = true;
  }

  /** Writes the duration the blocks reached into its place in the Info, if it moved. */
  #writeDuration(): void {
    if (this.#durationAt === null || this.#lastMs === this.#durationMs) return;
    this.#durationMs = this.#lastMs;
    const float = new Uint8Array(8);
    new DataView(float.buffer).setFloat64(0, (this.#lastMs * 1_000_000) / this.#scale);
    this.#file.seekSync(this.#durationAt, Deno.SeekMode.Start);
    let at = 0;
    while (at < 8) at += this.#file.writeSync(float.subarray(at));
    this.#file.seekSync(0, Deno.SeekMode.End);
    this.#isDirty = true;
  }
}
