/**
 * A PNG encoder for 8-bit RGBA pixels, shared by the player (the demo's
 * pictures, the test-pattern camera) and the service's media worker. Deflate
 * is `node:zlib`'s, native and fast.
 * @module
 */
import { crc32, deflateSync } from "node:zlib";

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const v = new DataView(out.buffer);
  v.setUint32(0, data.length);
  const typeAndData = out.subarray(4, 8 + data.length);
  typeAndData.set(new TextEncoder().encode(type), 0);
  typeAndData.set(data, 4);
  v.setUint32(8 + data.length, crc32(typeAndData) >>> 0);
  return out;
}

/** How rows are filtered before deflate. */
export interface PngOptions {
  /**
   * `none` (the default) keeps rows as they are; `up` stores each row as its
   * difference from the one above, which shrinks pictures whose rows repeat
   * (thumbnails, waveforms).
   */
  filter?: "none" | "up";
}

/**
 * Encodes RGBA pixels (`width * height * 4` bytes) as a PNG file.
 * @throws {RangeError} when the pixels are not `width * height * 4` bytes
 */
export function encodePng(
  width: number,
  height: number,
  rgba: Uint8Array,
  options: PngOptions = {},
): Uint8Array {
  if (rgba.length !== width * height * 4) {
    throw new RangeError(
      `Cannot encode PNG: expected ${width * height * 4} bytes, got ${rgba.length}`,
    );
  }
  const stride = width * 4;
  const raw = new Uint8Array(height * (stride + 1));
  for (let y = 0; y < height; y++) {
    const o = y * (stride + 1), row = y * stride;
    if (options.filter !== "up" || y === 0) {
      raw.set(rgba.subarray(row, row + stride), o + 1);
      continue;
    }
    raw[o] = 2; // "up"
    for (let x = 0; x < stride; x++) {
      raw[o + 1 + x] = (rgba[row + x]! - rgba[row - stride + x]!) & 255;
    }
  }
  const ihdr = new Uint8Array(13);
  const v = new DataView(ihdr.buffer);
  v.setUint32(0, width);
  v.setUint32(4, height);
  ihdr.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, no interlace
  const parts = [
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", new Uint8Array(deflateSync(raw))),
    chunk("IEND", new Uint8Array()),
  ];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
