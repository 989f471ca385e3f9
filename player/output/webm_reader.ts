/**
 * A streaming reader of the WebM the browser's MediaRecorder sends, in the
 * pieces it sends it: it finds the Segment, the Info (with its place in the
 * stream, so a writer can give it a Duration) and the video tracks, and
 * reports every block's track and time, without keeping the frames.
 *
 * Written here, not taken from npm: `ebml` (node-ebml, last release 2019)
 * is a Node Transform stream, and `ts-ebml` and `ebml-stream` copy every
 * element, frames included, into objects; this needs six element ids,
 * the byte offsets of two of them, and nothing kept (about 150 lines).
 * Segment and Cluster (often of unknown size from MediaRecorder) are read
 * as open containers: their children follow in the stream.
 * @module
 */
import { Buffer } from "node:buffer";

const EBML = 0x1a45dfa3;
const SEGMENT = 0x18538067;
const INFO = 0x1549a966;
const TIMECODE_SCALE = 0x2ad7b1;
const DURATION = 0x4489;
const TRACKS = 0x1654ae6b;
const TRACK_ENTRY = 0xae;
const TRACK_NUMBER = 0xd7;
const TRACK_TYPE = 0x83;
const CLUSTER = 0x1f43b675;
const TIMECODE = 0xe7;
const BLOCK_GROUP = 0xa0;
const BLOCK = 0xa1;
const SIMPLE_BLOCK = 0xa3;

/** Elements read whole (small), and the most bytes one may have. */
const WHOLE = new Set([EBML, INFO, TRACKS, TIMECODE]);
const MAX_WHOLE = 1 << 20;

/** Something the stream said, with offsets from the stream's first byte. */
export type WebmEvent =
  /** The Segment's header: its size field at `sizeAt`, `sizeLength` bytes. */
  | { kind: "segment"; sizeAt: number; sizeLength: number }
  /** The Segment's Info, bytes `start` to `end`, whole. */
  | { kind: "info"; start: number; end: number; timecodeScale: number; element: Uint8Array }
  /** The video tracks (TrackType 1), by number. */
  | { kind: "tracks"; video: number[] }
  /** A block (a frame of a track) at `ms` from the start; its last byte is before `end`. */
  | { kind: "block"; track: number; ms: number; end: number };

/** An element's header at `at` of `bytes`, or null when `bytes` ends first. */
export function readHeader(
  bytes: Uint8Array,
  at: number,
): { id: number; size: number; isUnknown: boolean; length: number } | null {
  const id = readVint(bytes, at, true);
  if (!id) return null;
  const size = readVint(bytes, at + id.length, false);
  if (!size) return null;
  return {
    id: id.value,
    size: size.value,
    isUnknown: size.isAllOnes,
    length: id.length + size.length,
  };
}

/** An EBML variable-size integer at `at`, or null when `bytes` ends first or it is not one. */
function readVint(
  bytes: Uint8Array,
  at: number,
  keepMarker: boolean,
): { value: number; length: number; isAllOnes: boolean } | null {
  const first = bytes[at];
  if (first === undefined || first === 0) return null;
  const length = Math.clz32(first) - 23;
  if (at + length > bytes.length) return null;
  let value = keepMarker ? first : first & (0xff >> length);
  let isAllOnes = value === 0xff >> length;
  for (let i = 1; i < length; i++) {
    value = value * 256 + bytes[at + i]!;
    isAllOnes &&= bytes[at + i] === 0xff;
  }
  return { value, length, isAllOnes };
}

/** The unsigned integer that fills an element's data. */
function readNumber(data: Uint8Array): number {
  let value = 0;
  for (const byte of data) value = value * 256 + byte;
  return value;
}

/** The children of a whole element's data: id, data, and the whole child. */
function* children(
  data: Uint8Array,
): Generator<{ id: number; data: Uint8Array; element: Uint8Array }> {
  let at = 0;
  while (at < data.length) {
    const h = readHeader(data, at);
    if (!h || h.isUnknown) return;
    const end = at + h.length + h.size;
    yield { id: h.id, data: data.subarray(at + h.length, end), element: data.subarray(at, end) };
    at = end;
  }
}

/**
 * Reads a WebM stream piece by piece (`push`), saying what it found.
 * @example
 * const reader = new WebmReader();
 * for (const event of reader.push(chunk)) if (event.kind === "block") frames++;
 */
export class WebmReader {
  /** Bytes not read yet; `#base` is the stream offset of the first. */
  #buffer: Uint8Array = new Uint8Array(0);
  #base = 0;
  /** Bytes of an element's data still to pass over (a block's frame, an element not needed). */
  #skip = 0;
  #scale = 1_000_000;
  #clusterTime = 0;
  /** Where the last BlockGroup read ends (its Block is whole in a file only then). */
  #groupEnd = 0;
  /** Set when the stream is not EBML as expected: the rest is passed over. */
  #isLost = false;

  /** Whether the stream went somewhere this reader cannot follow (the rest is not read). */
  get isLost(): boolean {
    return this.#isLost;
  }

  /** Reads `chunk`, the next bytes of the stream; returns what they completed. */
  push(chunk: Uint8Array): WebmEvent[] {
    const events: WebmEvent[] = [];
    if (this.#isLost) return events;
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    while (this.#step(events));
    return events;
  }

  /** Reads one element's header or data; false when more bytes are needed. */
  #step(events: WebmEvent[]): boolean {
    if (this.#skip > 0) {
      const n = Math.min(this.#skip, this.#buffer.length);
      this.#consume(n);
      this.#skip -= n;
      return this.#skip === 0 && this.#buffer.length > 0;
    }
    const h = readHeader(this.#buffer, 0);
    if (!h) {
      if (this.#buffer.length >= 16) this.#isLost = true;
      return false;
    }
    if (h.id === SEGMENT) {
      // The id is 4 bytes; the size follows.
      events.push({ kind: "segment", sizeAt: this.#base + 4, sizeLength: h.length - 4 });
      this.#consume(h.length);
      return true;
    }
    if (h.id === BLOCK_GROUP && !h.isUnknown) this.#groupEnd = this.#base + h.length + h.size;
    if (h.id === CLUSTER || h.id === BLOCK_GROUP || (h.isUnknown && !WHOLE.has(h.id))) {
      this.#consume(h.length);
      return true;
    }
    if (WHOLE.has(h.id)) {
      if (h.isUnknown || h.size > MAX_WHOLE) {
        this.#isLost = true;
        return false;
      }
      if (this.#buffer.length < h.length + h.size) return false;
      const element = this.#buffer.slice(0, h.length + h.size);
      this.#whole(h.id, element, h.length, events);
      this.#consume(element.length);
      return true;
    }
    if (h.id === SIMPLE_BLOCK || h.id === BLOCK) {
      // Track number (a vint) and a 16-bit time relative to the Cluster's.
      const need = Math.min(h.size, 12);
      if (this.#buffer.length < h.length + need) return false;
      const data = this.#buffer.subarray(h.length, h.length + need);
      const track = readVint(data, 0, false);
      if (track && track.length + 2 <= data.length) {
        const relative = new DataView(data.buffer, data.byteOffset + track.length, 2).getInt16(0);
        const ms = ((this.#clusterTime + relative) * this.#scale) / 1_000_000;
        // A Block plays once its BlockGroup is whole (its other children follow it).
        const end = this.#base + h.length + h.size;
        events.push({
          kind: "block",
          track: track.value,
          ms,
          end: h.id === BLOCK ? Math.max(end, this.#groupEnd) : end,
        });
      }
    }
    this.#consume(h.length);
    this.#skip = h.size;
    return this.#buffer.length > 0;
  }

  #whole(id: number, element: Uint8Array, headerLength: number, events: WebmEvent[]): void {
    const data = element.subarray(headerLength);
    if (id === TIMECODE) this.#clusterTime = readNumber(data);
    if (id === INFO) {
      for (const c of children(data)) {
        if (c.id === TIMECODE_SCALE) this.#scale = readNumber(c.data);
      }
      const start = this.#base;
      events.push({
        kind: "info",
        start,
        end: start + element.length,
        timecodeScale: this.#scale,
        element,
      });
    }
    if (id === TRACKS) {
      const video: number[] = [];
      for (const entry of children(data)) {
        if (entry.id !== TRACK_ENTRY) continue;
        let number = 0, type = 0;
        for (const c of children(entry.data)) {
          if (c.id === TRACK_NUMBER) number = readNumber(c.data);
          if (c.id === TRACK_TYPE) type = readNumber(c.data);
        }
        if (type === 1) video.push(number);
      }
      events.push({ kind: "tracks", video });
    }
  }

  #consume(n: number): void {
    this.#buffer = this.#buffer.subarray(n);
    this.#base += n;
  }
}

/** The Info `element` (id, size, data) with its Duration set to 0, and where that float is. */
export function infoWithDuration(element: Uint8Array): { bytes: Uint8Array; durationAt: number } {
  const h = readHeader(element, 0)!;
  const kept: Uint8Array[] = [];
  for (const c of children(element.subarray(h.length))) {
    if (c.id !== DURATION) kept.push(c.element);
  }
  // Duration last: an EBML float of 8 bytes, id 0x4489, size 0x88.
  const duration = new Uint8Array([0x44, 0x89, 0x88, 0, 0, 0, 0, 0, 0, 0, 0]);
  const body = Buffer.concat(kept);
  const size = body.length + duration.length;
  // An 8-byte size: the Info's length does not depend on its contents.
  const head = new Uint8Array([0x15, 0x49, 0xa9, 0x66, 0x01, 0, 0, 0, 0, 0, 0, 0]);
  new DataView(head.buffer).setUint32(8, size);
  const bytes = Buffer.concat([head, body, duration]);
  return { bytes, durationAt: bytes.length - 8 };
}
