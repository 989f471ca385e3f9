/**
 * Media measurement in pure TypeScript: detects PNG, JPEG, WAV and MP4/MOV
 * from their bytes (never the name) and reads dimensions and duration from
 * their headers with random-access reads, so large videos are not loaded.
 * Every walk is bounded, so no file can hold the player: at most 1,000 WAV
 * chunks or JPEG segments before the ones that matter, 10,000 MP4 boxes, a
 * `moov` box of 64 MiB; past that the file is CORRUPT_MEDIA. Small reads
 * come from a 64 KiB read-ahead, so a walk of 1,000 chunks is a few reads.
 * @module
 */
import type { FileKind } from "../../protocol/model.ts";
import { MAX_CHUNKS } from "../../protocol/media_limits.ts";

/** Random access to a file's bytes. */
export interface ByteSource {
  readonly size: number;
  /** Up to `length` bytes from `offset`; shorter at the end of the file. */
  read(offset: number, length: number): Promise<Uint8Array>;
}

/** What was measured. */
export interface MediaInfo {
  kind: FileKind;
  mimeType: string;
  width: number | null;
  height: number | null;
  duration: number | null;
}

/** Raised for bytes that are not a supported, well-formed media file. */
export class MediaError extends Error {
  /** `UNSUPPORTED_MEDIA` for unknown formats, `CORRUPT_MEDIA` for broken ones. */
  readonly code: "UNSUPPORTED_MEDIA" | "CORRUPT_MEDIA";
  /** Builds the error. */
  constructor(code: "UNSUPPORTED_MEDIA" | "CORRUPT_MEDIA", message: string) {
    super(message);
    this.name = "MediaError";
    this.code = code;
  }
}

/** A `ByteSource` over bytes in memory. */
export function memorySource(bytes: Uint8Array): ByteSource {
  return {
    size: bytes.length,
    read: (offset, length) => Promise.resolve(bytes.subarray(offset, offset + length)),
  };
}

/** Most MP4 boxes walked at one level. */
export const MAX_BOXES = 10_000;
/** Largest `moov` box read (a three-hour video's tables are a few MiB). */
export const MAX_MOOV_BYTES = 64 * 1024 * 1024;
/** A small read of a file brings this much into memory, for the reads that follow it. */
const READ_AHEAD = 64 * 1024;

/** Opens a file as a `ByteSource`; call `close` when done. */
export async function fileSource(path: string): Promise<ByteSource & { close(): void }> {
  const file = await Deno.open(path, { read: true });
  const { size } = await file.stat();
  const readAt = async (offset: number, length: number) => {
    const n = Math.max(0, Math.min(length, size - offset));
    const buf = new Uint8Array(n);
    await file.seek(offset, Deno.SeekMode.Start);
    let got = 0;
    while (got < n) {
      const r = await file.read(buf.subarray(got));
      if (r === null) break;
      got += r;
    }
    return buf.subarray(0, got);
  };
  let window = { offset: 0, bytes: new Uint8Array(0) };
  return {
    size,
    async read(offset, length) {
      const end = Math.min(offset + length, size);
      if (offset >= window.offset && end <= window.offset + window.bytes.length) {
        return window.bytes.subarray(offset - window.offset, end - window.offset);
      }
      if (length > READ_AHEAD) return await readAt(offset, length);
      window = { offset, bytes: await readAt(offset, READ_AHEAD) };
      return window.bytes.subarray(0, Math.max(0, end - offset));
    },
    close: () => file.close(),
  };
}

const view = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, b.byteLength);
const ascii = (b: Uint8Array, from: number, to: number) =>
  String.fromCharCode(...b.subarray(from, to));

/** Measures media from its bytes. */
export async function probeMedia(src: ByteSource): Promise<MediaInfo> {
  const head = await src.read(0, 16);
  if (head.length >= 8 && head[0] === 0x89 && ascii(head, 1, 4) === "PNG") return probePng(src);
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) {
    return probeJpeg(src);
  }
  if (head.length >= 12 && ascii(head, 0, 4) === "RIFF" && ascii(head, 8, 12) === "WAVE") {
    return probeWav(src);
  }
  if (head.length >= 8 && ["ftyp", "moov", "mdat", "wide", "free"].includes(ascii(head, 4, 8))) {
    return probeMp4(src, ascii(head, 4, 8) === "ftyp" ? ascii(head, 8, 12) : "qt  ");
  }
  throw new MediaError("UNSUPPORTED_MEDIA", "Unsupported media: not PNG, JPEG, WAV, MP4 or MOV");
}

/** A PNG's signature, IHDR chunk whole (13 bytes of data, its CRC) and an IEND chunk: 45 bytes. */
const PNG_LEAST = 8 + 25 + 12;

/**
 * A PNG's size from its IHDR; the file must end with its IEND chunk (within the last
 * `READ_AHEAD` bytes: data some tools append after it is allowed), so that a file cut short
 * (a broken download) is refused at once, not taken for a picture whose rows are missing.
 */
async function probePng(src: ByteSource): Promise<MediaInfo> {
  const b = await src.read(0, 33);
  if (b.length < 33 || ascii(b, 12, 16) !== "IHDR" || view(b).getUint32(8) !== 13) {
    throw new MediaError("CORRUPT_MEDIA", "Corrupt PNG: missing IHDR");
  }
  const v = view(b);
  const width = v.getUint32(16), height = v.getUint32(20);
  if (!width || !height) throw new MediaError("CORRUPT_MEDIA", "Corrupt PNG: zero size");
  const tailFrom = Math.max(33, src.size - READ_AHEAD);
  const tail = src.size >= PNG_LEAST ? await src.read(tailFrom, src.size - tailFrom) : null;
  if (!tail || !hasIend(tail)) {
    throw new MediaError(
      "CORRUPT_MEDIA",
      `Corrupt PNG: cut short: no IEND chunk at its end (${src.size} bytes)`,
    );
  }
  return { kind: "image", mimeType: "image/png", width, height, duration: null };
}

/** Whether `tail` holds an IEND chunk whole: its zero length, its type and its 4-byte CRC. */
function hasIend(tail: Uint8Array): boolean {
  for (let at = tail.length - 8; at >= 4; at--) {
    // Data appended after the chunk may hold the letters too: only a zero-length chunk counts.
    if (
      tail[at] === 0x49 && ascii(tail, at, at + 4) === "IEND" && view(tail).getUint32(at - 4) === 0
    ) {
      return true;
    }
  }
  return false;
}

async function probeJpeg(src: ByteSource): Promise<MediaInfo> {
  let offset = 2;
  for (let steps = 0; offset + 4 <= src.size; steps++) {
    if (steps >= MAX_CHUNKS) {
      throw new MediaError(
        "CORRUPT_MEDIA",
        `Corrupt JPEG: more than ${MAX_CHUNKS} segments before its frame header`,
      );
    }
    const m = await src.read(offset, 4);
    if (m[0] !== 0xff) throw new MediaError("CORRUPT_MEDIA", "Corrupt JPEG: bad marker");
    const marker = m[1]!;
    if (marker === 0xff) {
      offset++;
      continue;
    }
    const length = view(m).getUint16(2);
    const isSof = marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker);
    if (isSof) {
      const s = await src.read(offset + 4, 5);
      if (s.length < 5) break;
      const height = view(s).getUint16(1), width = view(s).getUint16(3);
      if (!width || !height) break;
      return { kind: "image", mimeType: "image/jpeg", width, height, duration: null };
    }
    if (marker === 0xd9 || marker === 0xda || length < 2) break;
    offset += 2 + length;
  }
  throw new MediaError("CORRUPT_MEDIA", "Corrupt JPEG: no frame header");
}

async function probeWav(src: ByteSource): Promise<MediaInfo> {
  let offset = 12;
  let byteRate = 0;
  for (let chunks = 0; offset + 8 <= src.size; chunks++) {
    if (chunks >= MAX_CHUNKS) {
      throw new MediaError(
        "CORRUPT_MEDIA",
        `Corrupt WAV: more than ${MAX_CHUNKS} chunks before its "fmt " and "data" chunks`,
      );
    }
    const h = await src.read(offset, 8);
    const id = ascii(h, 0, 4), size = view(h).getUint32(4, true);
    if (id === "fmt ") {
      const f = await src.read(offset + 8, 16);
      if (f.length < 16) break;
      byteRate = view(f).getUint32(8, true);
    } else if (id === "data") {
      if (!byteRate) break;
      const dataSize = Math.min(size, src.size - offset - 8);
      return {
        kind: "audio",
        mimeType: "audio/wav",
        width: null,
        height: null,
        duration: dataSize / byteRate,
      };
    }
    offset += 8 + size + (size % 2);
  }
  throw new MediaError("CORRUPT_MEDIA", "Corrupt WAV: missing fmt or data chunk");
}

interface Box {
  type: string;
  start: number;
  headerSize: number;
  size: number;
}

/**
 * The boxes from `from` to `to`, at most `MAX_BOXES`; with `until`, the walk
 * stops at the first box of that type (a fragmented MP4 has thousands of
 * fragments after its `moov`).
 */
async function readBoxes(
  src: ByteSource,
  from: number,
  to: number,
  until?: string,
): Promise<Box[]> {
  const boxes: Box[] = [];
  let offset = from;
  while (offset + 8 <= to) {
    if (boxes.length >= MAX_BOXES) {
      throw new MediaError(
        "CORRUPT_MEDIA",
        until
          ? `Corrupt MP4: more than ${MAX_BOXES} boxes before its "${until}" box`
          : `Corrupt MP4: more than ${MAX_BOXES} boxes in one box`,
      );
    }
    const h = await src.read(offset, 16);
    let size = view(h).getUint32(0);
    let headerSize = 8;
    if (size === 1 && h.length >= 16) {
      size = Number(view(h).getBigUint64(8));
      headerSize = 16;
    } else if (size === 0) size = to - offset;
    if (size < headerSize || offset + size > to) {
      throw new MediaError("CORRUPT_MEDIA", `Corrupt MP4: box "${ascii(h, 4, 8)}" overruns`);
    }
    boxes.push({ type: ascii(h, 4, 8), start: offset, headerSize, size });
    if (boxes[boxes.length - 1]!.type === until) break;
    offset += size;
  }
  return boxes;
}

async function probeMp4(src: ByteSource, brand: string): Promise<MediaInfo> {
  const top = await readBoxes(src, 0, src.size, "moov");
  const moov = top.find((b) => b.type === "moov");
  if (!moov) throw new MediaError("CORRUPT_MEDIA", "Corrupt MP4: no moov box");
  if (moov.size > MAX_MOOV_BYTES) {
    throw new MediaError(
      "CORRUPT_MEDIA",
      `Corrupt MP4: "moov" box of ${moov.size} bytes is over ${MAX_MOOV_BYTES}`,
    );
  }
  const body = await src.read(moov.start, moov.size);
  const mem = memorySource(body);
  const children = await readBoxes(mem, moov.headerSize, body.length);
  const mvhd = children.find((b) => b.type === "mvhd");
  if (!mvhd) throw new MediaError("CORRUPT_MEDIA", "Corrupt MP4: no mvhd box");
  const v = view(body.subarray(mvhd.start + mvhd.headerSize));
  const version = v.getUint8(0);
  const timescale = version === 1 ? v.getUint32(20) : v.getUint32(12);
  const rawDuration = version === 1 ? Number(v.getBigUint64(24)) : v.getUint32(16);
  if (!timescale) throw new MediaError("CORRUPT_MEDIA", "Corrupt MP4: zero timescale");
  let width: number | null = null, height: number | null = null;
  for (const trak of children.filter((b) => b.type === "trak")) {
    const inner = await readBoxes(mem, trak.start + trak.headerSize, trak.start + trak.size);
    const tkhd = inner.find((b) => b.type === "tkhd");
    if (!tkhd) continue;
    const t = view(body.subarray(tkhd.start + tkhd.headerSize, tkhd.start + tkhd.size));
    const end = t.byteLength;
    const w = Math.round(t.getUint32(end - 8) / 65536),
      h = Math.round(t.getUint32(end - 4) / 65536);
    if (w && h) {
      width = w;
      height = h;
      break;
    }
  }
  const isQuickTime = brand === "qt  ";
  return {
    kind: width ? "video" : "audio",
    mimeType: isQuickTime ? "video/quicktime" : width ? "video/mp4" : "audio/mp4",
    width,
    height,
    duration: rawDuration / timescale,
  };
}
