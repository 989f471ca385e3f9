/**
 * Writes the duration into a WebM file from the browser's MediaRecorder,
 * which streams the file and never goes back to say how long it is: players
 * and ffprobe then see no duration. The Segment's Info gets a Duration
 * element (EBML float, in TimecodeScale units), or its existing one is set.
 * Written here because the npm libraries that do it (`fix-webm-duration`,
 * `ts-ebml`) work on browser Blobs or parse the whole file into objects;
 * this is one pass over the header, about 60 lines.
 * @module
 */
import { Buffer } from "node:buffer";

const SEGMENT = 0x18538067;
const INFO = 0x1549a966;
const TIMECODE_SCALE = 0x2ad7b1;
const DURATION = 0x4489;

/** An EBML variable-size integer at `at`: its value (marker removed) and length. */
function vint(
  bytes: Uint8Array,
  at: number,
  keepMarker = false,
): { value: number; length: number } {
  const first = bytes[at]!;
  let length = 1;
  while (length <= 8 && !(first & (0x80 >> (length - 1)))) length++;
  let value = keepMarker ? first : first & (0xff >> length);
  for (let i = 1; i < length; i++) value = value * 256 + bytes[at + i]!;
  return { value, length };
}

/** An element's id, size and where its data starts; `isUnknown` for the all-ones size. */
function header(bytes: Uint8Array, at: number) {
  const id = vint(bytes, at, true);
  const size = vint(bytes, at + id.length);
  const isUnknown = size.value === 2 ** (7 * size.length) - 1;
  return { id: id.value, size: size.value, isUnknown, data: at + id.length + size.length };
}

function sizeBytes(size: number): Uint8Array {
  // 8 bytes: any size fits, and the Info can grow without moving its id.
  const out = new Uint8Array(8);
  let v = size;
  for (let i = 7; i > 0; i--) {
    out[i] = v % 256;
    v = Math.floor(v / 256);
  }
  out[0] = 0x01;
  return out;
}

/**
 * `bytes` with the Segment's duration set to `durationMs`; unchanged when
 * the layout is not the expected one (no Segment or Info near the start).
 */
export function setWebmDuration(bytes: Uint8Array, durationMs: number): Uint8Array {
  let at = 0;
  const ebml = header(bytes, at);
  at = ebml.data + ebml.size;
  const segment = header(bytes, at);
  if (segment.id !== SEGMENT) return bytes;
  at = segment.data;
  while (at < bytes.length - 8) {
    const el = header(bytes, at);
    if (el.id !== INFO) {
      if (el.isUnknown) return bytes;
      at = el.data + el.size;
      continue;
    }
    let scale = 1_000_000;
    let child = el.data;
    const kept: Uint8Array[] = [];
    while (child < el.data + el.size) {
      const c = header(bytes, child);
      const end = c.data + c.size;
      if (c.id === TIMECODE_SCALE) scale = readUint(bytes, c);
      if (c.id !== DURATION) kept.push(bytes.subarray(child, end));
      child = end;
    }
    const duration = new Uint8Array(11);
    duration.set([0x44, 0x89, 0x88]);
    new DataView(duration.buffer).setFloat64(3, (durationMs * 1_000_000) / scale);
    const body = concat([...kept, duration]);
    return concat([
      bytes.subarray(0, at),
      new Uint8Array([0x15, 0x49, 0xa9, 0x66]),
      sizeBytes(body.length),
      body,
      bytes.subarray(el.data + el.size),
    ]);
  }
  return bytes;
}

function readUint(bytes: Uint8Array, el: { data: number; size: number }): number {
  let v = 0;
  for (let i = 0; i < el.size; i++) v = v * 256 + bytes[el.data + i]!;
  return v;
}

function concat(parts: Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts));
}
