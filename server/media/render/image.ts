/**
 * A PNG or JPEG file's bytes to an upright, opaque raster, in pure WASM.
 * @module
 */
import { decodeJpegFull, decodeJpegScaled, decodePng } from "./codecs.ts";
import { applyOrientation, jpegOrientation } from "./exif.ts";
import type { Raster } from "./raster.ts";

/** Pictures above this many pixels are refused (a bomb would exhaust the worker's memory). */
export const MAX_PIXELS = 64_000_000;

/** Where transparent pixels end up: a dark grey that the overlay and cards also sit on. */
export const BACKDROP = [30, 30, 30] as const;

/** Whether the bytes start like a PNG. */
export function isPng(b: Uint8Array): boolean {
  return b.length >= 8 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47;
}

/** Whether the bytes start like a JPEG. */
export function isJpeg(b: Uint8Array): boolean {
  return b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff;
}

function pngPixels(b: Uint8Array): number {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  return b.length >= 24 ? v.getUint32(16) * v.getUint32(20) : 0;
}

/**
 * Decodes a PNG or JPEG (by its bytes, not its name) to an upright opaque
 * raster. A JPEG is decoded at the smallest scale that still covers
 * `minSide` (null: full size) and turned by its EXIF orientation; imagescript
 * decodes it, mozjpeg is tried when imagescript fails (as it does on some
 * phone JPEGs). Throws an Error when nothing can decode it.
 */
export async function decodeImage(bytes: Uint8Array, minSide: number | null): Promise<Raster> {
  let raster: Raster;
  if (isPng(bytes)) {
    if (pngPixels(bytes) > MAX_PIXELS) throw new Error("Cannot decode PNG: too many pixels");
    raster = await decodePng(bytes);
  } else if (isJpeg(bytes)) {
    try {
      raster = await decodeJpegScaled(bytes, minSide);
    } catch {
      raster = await decodeJpegFull(bytes);
    }
    if (raster.width * raster.height > MAX_PIXELS) {
      throw new Error("Cannot decode JPEG: too many pixels");
    }
    raster = applyOrientation(raster, jpegOrientation(bytes));
  } else {
    throw new Error("Cannot decode image: neither PNG nor JPEG");
  }
  flatten(raster);
  return raster;
}

/** Composites translucent pixels over the backdrop, in place. */
function flatten(r: Raster): void {
  const d = r.data;
  for (let i = 3; i < d.length; i += 4) {
    const a = d[i]!;
    if (a === 255) continue;
    for (let c = 0; c < 3; c++) {
      d[i - 3 + c] = Math.round((d[i - 3 + c]! * a + BACKDROP[c]! * (255 - a)) / 255);
    }
    d[i] = 255;
  }
}
