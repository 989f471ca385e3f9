/**
 * EXIF orientation of a JPEG (the tag phones write instead of rotating the
 * pixels) and the rotation or mirror that puts the picture upright.
 * @module
 */
import { pixelBuffer, type Raster } from "./raster.ts";

/** The EXIF orientation (1..8) in a JPEG's APP1 segment; 1 when absent or unreadable. */
export function jpegOrientation(bytes: Uint8Array): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 2;
  while (offset + 4 <= bytes.length && bytes[offset] === 0xff) {
    const marker = bytes[offset + 1]!;
    if (marker === 0xda || marker === 0xd9) break; // image data: no more metadata
    const length = view.getUint16(offset + 2);
    if (marker === 0xe1 && offset + 4 + length - 2 <= bytes.length) {
      const found = tiffOrientation(view, offset + 4, offset + 2 + length);
      if (found) return found;
    }
    offset += 2 + length;
  }
  return 1;
}

function tiffOrientation(view: DataView, start: number, end: number): number | null {
  // "Exif\0\0", then a TIFF header: byte order, 42, offset of the first directory.
  if (end - start < 14 || view.getUint32(start) !== 0x45786966) return null;
  const tiff = start + 6;
  const little = view.getUint16(tiff) === 0x4949;
  if (view.getUint16(tiff + 2, little) !== 42) return null;
  const dir = tiff + view.getUint32(tiff + 4, little);
  if (dir + 2 > end) return null;
  const entries = view.getUint16(dir, little);
  for (let i = 0; i < entries; i++) {
    const entry = dir + 2 + i * 12;
    if (entry + 12 > end) return null;
    if (view.getUint16(entry, little) === 0x0112) {
      const value = view.getUint16(entry + 8, little);
      return value >= 1 && value <= 8 ? value : null;
    }
  }
  return null;
}

/** The raster turned upright for an EXIF orientation (1 returns it unchanged). */
export function applyOrientation(src: Raster, orientation: number): Raster {
  if (orientation <= 1 || orientation > 8) return src;
  const swap = orientation >= 5;
  const w = swap ? src.height : src.width, h = swap ? src.width : src.height;
  const out = pixelBuffer(w * h * 4);
  const s = new Uint32Array(src.data.buffer, src.data.byteOffset, src.width * src.height);
  const d = new Uint32Array(out.buffer, out.byteOffset, w * h);
  const sw = src.width, sh = src.height;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      // (sx, sy): the source pixel that lands at (x, y), per the EXIF table.
      let sx: number, sy: number;
      switch (orientation) {
        case 2:
          sx = sw - 1 - x;
          sy = y;
          break;
        case 3:
          sx = sw - 1 - x;
          sy = sh - 1 - y;
          break;
        case 4:
          sx = x;
          sy = sh - 1 - y;
          break;
        case 5:
          sx = y;
          sy = x;
          break;
        case 6:
          sx = y;
          sy = sh - 1 - x;
          break;
        case 7:
          sx = sw - 1 - y;
          sy = sh - 1 - x;
          break;
        default:
          sx = sw - 1 - y;
          sy = x;
          break; // 8
      }
      d[y * w + x] = s[sy * sw + sx]!;
    }
  }
  return { width: w, height: h, data: out };
}
