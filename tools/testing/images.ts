/**
 * Reading the images the service answers, independently of the code that
 * made them: PNG decoded fully (8-bit RGB, RGBA, grey, grey+alpha; every
 * filter), JPEG by its frame header (size) only.
 * @module
 */
import { inflateSync } from "node:zlib";

/** A decoded picture: RGBA, 4 bytes a pixel. */
export interface Pixels {
  width: number;
  height: number;
  rgba: Uint8Array;
}

/** Whether the bytes are a PNG or a JPEG, by their signature. */
export function formatOf(bytes: Uint8Array): "png" | "jpeg" | "other" {
  if (bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) {
    return "png";
  }
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "jpeg";
  return "other";
}

/** A JPEG's width and height, from its SOF segment. */
export function jpegSize(bytes: Uint8Array): { width: number; height: number } {
  let at = 2;
  while (at + 9 < bytes.length) {
    if (bytes[at] !== 0xff) throw new Error(`Not a JPEG marker at ${at}`);
    const marker = bytes[at + 1]!;
    const length = (bytes[at + 2]! << 8) | bytes[at + 3]!;
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return {
        height: (bytes[at + 5]! << 8) | bytes[at + 6]!,
        width: (bytes[at + 7]! << 8) | bytes[at + 8]!,
      };
    }
    at += 2 + length;
  }
  throw new Error("No JPEG frame header");
}

/** Decodes an 8-bit, non-interlaced PNG. */
export function decodePng(bytes: Uint8Array): Pixels {
  if (formatOf(bytes) !== "png") throw new Error("Not a PNG");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 8;
  let width = 0, height = 0, colour = 0;
  const data: Uint8Array[] = [];
  while (at < bytes.length) {
    const length = view.getUint32(at);
    const type = new TextDecoder().decode(bytes.subarray(at + 4, at + 8));
    const body = bytes.subarray(at + 8, at + 8 + length);
    if (type === "IHDR") {
      width = view.getUint32(at + 8);
      height = view.getUint32(at + 12);
      if (body[8] !== 8 || body[12] !== 0) throw new Error("Only 8-bit non-interlaced PNGs");
      colour = body[9]!;
    } else if (type === "IDAT") data.push(body);
    at += 12 + length;
  }
  const channels = ({ 0: 1, 2: 3, 4: 2, 6: 4 } as Record<number, number>)[colour];
  if (!channels) throw new Error(`PNG colour type ${colour} not read here`);
  const raw = new Uint8Array(inflateSync(Buffer.concat(data)));
  const stride = width * channels;
  const out = new Uint8Array(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? out[y * stride + x - channels]! : 0;
      const b = y > 0 ? out[(y - 1) * stride + x]! : 0;
      const c = x >= channels && y > 0 ? out[(y - 1) * stride + x - channels]! : 0;
      const p = a + b - c;
      const [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)];
      const predictor = [
        0,
        a,
        b,
        (a + b) >> 1,
        pa <= pb && pa <= pc ? a : pb <= pc ? b : c,
      ][filter]!;
      out[y * stride + x] = (line[x]! + predictor) & 255;
    }
  }
  const rgba = new Uint8Array(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    const s = out.subarray(i * channels, (i + 1) * channels);
    const [r, g, b, alpha] = channels === 1
      ? [s[0]!, s[0]!, s[0]!, 255]
      : channels === 2
      ? [s[0]!, s[0]!, s[0]!, s[1]!]
      : [s[0]!, s[1]!, s[2]!, channels === 4 ? s[3]! : 255];
    rgba.set([r, g, b, alpha], i * 4);
  }
  return { width, height, rgba };
}

/** The RGBA of the pixel at (x, y). */
export function pixel(p: Pixels, x: number, y: number): number[] {
  const i = (y * p.width + x) * 4;
  return [...p.rgba.subarray(i, i + 4)];
}
