/**
 * Hostile media files, made in memory: images whose header declares far more
 * pixels than the file holds (a decoder that trusts the header allocates for
 * all of them) and a WAV of a million empty chunks (a reader that walks them
 * one read at a time takes minutes). Used by the `image_bombs` and
 * `wav_bombs` probes and by the media tests.
 * @module
 */

/**
 * An 8x8 grey baseline JPEG (mozjpeg, quality 80, 266 bytes) that every
 * decoder reads; its frame header (SOF0) is rewritten to declare the bomb's size.
 */
const TINY_JPEG =
  "/9j/4AAQSkZJRgABAQAAAQABAAD/2wCEAAYGBgYHBgcICAcKCwoLCg8ODAwODxYQERAREBYiFRkVFRkVIh4kHhweJB42KiYmKjY+NDI0PkxERExfWl98fKcBBgYGBgcGBwgIBwoLCgsKDw4MDA4PFhAREBEQFiIVGRUVGRUiHiQeHB4kHjYqJiYqNj40MjQ+TERETF9aX3x8p//AABEIAAgACAMBIQACEQEDEQH/xABKAAEAAAAAAAAAAAAAAAAAAAAAEAEAAAAAAAAAAAAAAAAAAAAAAQEAAAAAAAAAAAAAAAAAAAAAEQEAAAAAAAAAAAAAAAAAAAAA/9oADAMBAAIRAxEAPwAA/9k=";

/**
 * A 266-byte JPEG whose frame header declares `width x height` (at most
 * 65535 each): decoders that trust it allocate the whole frame, then fill it
 * from 8x8 pixels of data. 30000x30000 is the attack of issue 30.
 */
export function jpegHeaderBomb(width: number, height: number): Uint8Array {
  const bytes = Uint8Array.from(atob(TINY_JPEG), (c) => c.charCodeAt(0));
  const view = new DataView(bytes.buffer);
  for (let at = 2; at + 4 <= bytes.length;) {
    const marker = bytes[at + 1]!;
    if (marker === 0xc0) {
      view.setUint16(at + 5, height);
      view.setUint16(at + 7, width);
      return bytes;
    }
    at += 2 + view.getUint16(at + 2);
  }
  throw new Error("The embedded JPEG has no SOF0 segment");
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** CRC-32 of PNG chunks (the same as zlib's). */
function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const b of bytes) {
    crc ^= b;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set(new TextEncoder().encode(type), 4);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function ihdr(width: number, height: number): Uint8Array {
  const data = new Uint8Array(13);
  const view = new DataView(data.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  data.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, deflate, no filter method, no interlace
  return pngChunk("IHDR", data);
}

/**
 * A PNG of a few dozen bytes whose header (IHDR) declares `width x height`
 * RGBA pixels and whose data is one empty deflate block: header only.
 */
export function pngHeaderBomb(width: number, height: number): Uint8Array {
  const emptyZlib = new Uint8Array([0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]);
  return concat([
    new Uint8Array(PNG_SIGNATURE),
    ihdr(width, height),
    pngChunk("IDAT", emptyZlib),
    pngChunk("IEND", new Uint8Array(0)),
  ]);
}

/**
 * A real, complete PNG of `width x height` transparent black pixels (8000x8000
 * deflates to 416 KB): decoding it needs `width * height * 4` bytes.
 * Made as a stream, so making it costs little memory.
 */
export async function pngZeros(width: number, height: number): Promise<Uint8Array> {
  const row = new Uint8Array(1 + width * 4); // filter byte 0, then the pixels
  const stream = new CompressionStream("deflate");
  const writer = stream.writable.getWriter();
  const compressed = new Response(stream.readable).arrayBuffer();
  for (let y = 0; y < height; y++) await writer.write(row);
  await writer.close();
  return concat([
    new Uint8Array(PNG_SIGNATURE),
    ihdr(width, height),
    pngChunk("IDAT", new Uint8Array(await compressed)),
    pngChunk("IEND", new Uint8Array(0)),
  ]);
}

/**
 * A `bytes`-long WAV (RIFF/WAVE) that is nothing but empty `JUNK` chunks,
 * 8 bytes each: 8 MiB holds a million of them, and no `fmt ` or `data`.
 * With `thenAudio`, a valid mono 8 kHz fmt and one second of silence follow
 * `chunks` empty chunks instead (a legitimate, if odd, file).
 */
export function chunkBombWav(bytes: number, options: { chunks?: number } = {}): Uint8Array {
  const chunks = options.chunks ?? Math.floor((bytes - 12) / 8);
  const tail = options.chunks === undefined ? 0 : 8 + 16 + 8 + 16000;
  const out = new Uint8Array(12 + chunks * 8 + tail);
  const view = new DataView(out.buffer);
  const text = (at: number, s: string) => out.set(new TextEncoder().encode(s), at);
  text(0, "RIFF");
  view.setUint32(4, out.length - 8, true);
  text(8, "WAVE");
  const junk = new TextEncoder().encode("JUNK"); // size 0: the next chunk follows
  for (let i = 0; i < chunks; i++) out.set(junk, 12 + i * 8);
  if (tail > 0) {
    const at = 12 + chunks * 8;
    text(at, "fmt ");
    view.setUint32(at + 4, 16, true);
    view.setUint16(at + 8, 1, true); // PCM
    view.setUint16(at + 10, 1, true); // mono
    view.setUint32(at + 12, 8000, true);
    view.setUint32(at + 16, 16000, true);
    view.setUint16(at + 20, 2, true);
    view.setUint16(at + 22, 16, true);
    text(at + 24, "data");
    view.setUint32(at + 28, 16000, true);
  }
  return out;
}
