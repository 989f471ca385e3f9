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
 * the video track) and seconds (the time of the last block), a block only
 * once its last byte is in the file: a stream cut anywhere (its browser
 * killed, a full disk) leaves a header whose duration is the last whole
 * block's time, what a player plays of it. A write that fails (a full disk)
 * keeps what fit, and the duration is put in place for it, which needs no
 * new space (`isDurationStale` says when even that failed).
 * @module
 */
import { Buffer } from "node:buffer";
import { infoWithDuration, type WebmEvent, WebmReader } from "./webm_reader.ts";

/** The Info as the reader found it. */
type InfoEvent = Extract<WebmEvent, { kind: "info" }>;

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
  /** Blocks read whose last byte is not in the file yet: counted once it is. */
  #pending: { end: number; ms: number; isVideo: boolean }[] = [];
  /** File bytes less stream bytes, once the head is written (the Info's Duration added). */
  #shift: number | null = null;
  #isDurationStale = false;
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

  /** Whether the header's duration may say more than the file holds (a write failed, and so did putting it in place). */
  get isDurationStale(): boolean {
    return this.#isDurationStale;
  }

  /**
   * Writes the next bytes of the stream, then the duration they reach, flushing when due.
   * @throws what the file throws (a full disk): what fit is written, its duration in place
   */
  write(chunk: Uint8Array): void {
    let info: InfoEvent | null = null;
    for (const event of this.#reader.push(chunk)) {
      if (event.kind === "segment") {
        this.#segmentSize = { at: event.sizeAt, length: event.sizeLength };
      } else if (event.kind === "tracks") this.#videoTracks = new Set(event.video);
      else if (event.kind === "block") {
        const isVideo = this.#videoTracks.has(event.track);
        this.#pending.push({ end: event.end, ms: event.ms, isVideo });
      } else if (event.kind === "info" && this.#head) {
        this.#scale = event.timecodeScale;
        info = event;
      }
    }
    try {
      this.#writeChunk(chunk, info);
    } catch (error) {
      this.#settle();
      try {
        this.#writeDuration();
      } catch {
        this.#isDurationStale = true;
      }
      throw error;
    }
    this.#settle();
    this.#writeDuration();
    if (this.#now() - this.#syncedAt >= SYNC_EVERY_MS) this.flush();
  }

  #writeChunk(chunk: Uint8Array, info: InfoEvent | null): void {
    if (info) this.#writeHead(chunk, info);
    else if (!this.#head) this.#append(chunk);
    else {
      this.#head.push(chunk);
      this.#headBytes += chunk.length;
      // Not the WebM expected: written as it comes, without a duration.
      if (this.#reader.isLost || this.#headBytes > MAX_HEADER) this.#writeHeadAsIs();
    }
  }

  /** Counts the blocks whose last byte is in the file now. */
  #settle(): void {
    if (this.#shift === null || this.#pending.length === 0) return;
    const inFile = this.#bytes - this.#shift;
    let i = 0;
    for (; i < this.#pending.length && this.#pending[i]!.end <= inFile; i++) {
      const block = this.#pending[i]!;
      if (block.isVideo) this.#videoFrames++;
      this.#lastMs = Math.max(this.#lastMs, block.ms);
    }
    this.#pending.splice(0, i);
  }

  /** Flushes what was written to disk now. */
  flush(): void {
    this.#syncedAt = this.#now();
    if (!this.#isDirty) return;
    this.#isDirty = false;
    this.#file.syncDataSync();
  }

  /** Writes what is held, the last duration, flushes, and closes the file (even when that fails). */
  close(): void {
    try {
      if (this.#head) this.#writeHeadAsIs();
      this.#settle();
      this.#writeDuration();
      this.flush();
    } finally {
      this.#file.close();
    }
  }

  /**
   * The head (the chunks so far, `chunk` last) with the Info given a Duration, and the
   * Segment's size made unknown (its length may change; MediaRecorder's already is).
   */
  #writeHead(chunk: Uint8Array, info: InfoEvent) {
    const stream = Buffer.concat([...this.#head!, chunk]);
    this.#head = null;
    const { bytes, durationAt } = infoWithDuration(info.element);
    this.#shift = bytes.length - (info.end - info.start);
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
    this.#shift = 0;
    this.#append(Buffer.concat(head));
  }

  #append(bytes: Uint8Array): void {
    let at = 0;
    while (at < bytes.length) {
      const n = this.#file.writeSync(bytes.subarray(at));
      // Counted as it goes: a write that fails partway keeps what went before.
      at += n;
      this.#bytes += n;
      this.#isDirty = true;
    }
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
