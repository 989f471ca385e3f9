/**
 * A PNG or JPEG file's bytes to an upright, opaque raster, in pure WASM.
 * Nothing is decoded before its header's size is checked: the width and
 * height come from the PNG's IHDR or the JPEG's frame header (SOF), read by
 * `image-size`, and a picture of more pixels than the job allows
 * (`maxImagePixels`) is refused before any decoder allocates for it.
 * @module
 */
import { imageSize } from "image-size";
import { decodeJpegFull, decodeJpegScaled, decodePng } from "./codecs.ts";
import { applyOrientation, jpegOrientation } from "./exif.ts";
import type { Raster } from "./raster.ts";
import { RenderError } from "./types.ts";

/** Where transparent pixels end up: a dark grey that the overlay and cards also sit on. */
export const BACKDROP = [30, 30, 30] as const;

/** Bytes read first to find the header; a JPEG's SOF is nearly always within them. */
const HEAD_BYTES = 1024 * 1024;

/**
 * The memory budget of one whole PNG decode: the 600 MB bound of the media
 * bombs (`image_bombs`), less about 150 MB of the service itself and 150 MB
 * of a 4K picture the other lane of the pool may be making at the same time.
 */
export const PNG_DECODE_BUDGET_BYTES = 300_000_000;
/**
 * RGBA copies of a PNG's pixels alive at once while a picture is made from
 * it, measured: the decoder's output in its WASM memory (which never
 * shrinks), our raster, then the encoder's input and output or the scaled
 * square. A 36-megapixel PNG (144 MB of RGBA) peaked at 907 MB at its
 * original size and 545 MB as a 64-pixel thumbnail (`RenderPool` alone).
 */
export const PNG_DECODE_COPIES = 6;
/**
 * The most pixels of a PNG decoded whole (12.5 megapixels): a PNG is not
 * decoded scaled as a JPEG is, so a larger one (yet within `maxImagePixels`)
 * is refused from its header like an over-limit picture (docs/media.md).
 */
export const MAX_PNG_DECODE_PIXELS = Math.floor(PNG_DECODE_BUDGET_BYTES / (4 * PNG_DECODE_COPIES));

/** An image's size and format, from its header alone. */
export interface ImageHeader {
  format: "png" | "jpeg";
  width: number;
  height: number;
}

/** Whether the bytes start like a PNG. */
export function isPng(b: Uint8Array): boolean {
  return b.length >= 8 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47;
}

/** Whether the bytes start like a JPEG. */
export function isJpeg(b: Uint8Array): boolean {
  return b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff;
}

function refused(message: string): RenderError {
  return new RenderError("CORRUPT_MEDIA", message);
}

/**
 * The size of a PNG or JPEG from its header (`image-size`: PNG IHDR, JPEG
 * SOF), without decoding anything.
 * @throws {RenderError} CORRUPT_MEDIA for anything else, or a header cut short
 */
export function imageHeader(bytes: Uint8Array): ImageHeader {
  const format = isPng(bytes) ? "png" : isJpeg(bytes) ? "jpeg" : null;
  if (!format) throw refused("Cannot decode image: neither PNG nor JPEG");
  let size: { width?: number; height?: number };
  try {
    size = imageSize(bytes);
  } catch (error) {
    throw refused(`Cannot read the ${format.toUpperCase()} header: ${(error as Error).message}`);
  }
  const { width = 0, height = 0 } = size;
  if (width < 1 || height < 1) {
    throw refused(`Cannot decode ${format.toUpperCase()}: its header says ${width}x${height}`);
  }
  return { format, width, height };
}

/**
 * Refuses a picture of more than `maxPixels` pixels.
 * @throws {RenderError} CORRUPT_MEDIA naming the size and the limit
 */
export function checkPixels(header: ImageHeader, maxPixels: number): void {
  const pixels = header.width * header.height;
  if (pixels > maxPixels) {
    throw refused(
      `Image of "${header.width}x${header.height}" (${pixels} pixels) is over the limit of ${maxPixels} pixels (maxImagePixels)`,
    );
  }
}

/**
 * Refuses a PNG whose whole decode would need more than the budget
 * (`MAX_PNG_DECODE_PIXELS`), before anything is decoded.
 * @throws {RenderError} CORRUPT_MEDIA naming the size, the bytes and the ceiling
 */
function checkWholeDecode(header: ImageHeader): void {
  const pixels = header.width * header.height;
  if (pixels <= MAX_PNG_DECODE_PIXELS) return;
  const mb = Math.round((pixels * 4 * PNG_DECODE_COPIES) / 1e6);
  throw refused(
    `PNG of "${header.width}x${header.height}" (${pixels} pixels) would need about ${mb} MB to decode whole, over the ceiling of ${MAX_PNG_DECODE_PIXELS} pixels for a PNG`,
  );
}

/**
 * The bytes of an image file whose header allows decoding it: a file larger
 * than `maxPixels` of raw RGBA (plus 16 MiB of metadata) is refused unread,
 * then its first MiB is read for the header, which must be within `maxPixels`;
 * only then is the rest read.
 * @throws {RenderError} CORRUPT_MEDIA; a missing file throws Deno's error
 */
export async function readImageFile(path: string, maxPixels: number): Promise<Uint8Array> {
  const file = await Deno.open(path, { read: true });
  try {
    const size = (await file.stat()).size;
    const maxBytes = maxPixels * 4 + 16 * 1024 * 1024;
    if (size > maxBytes) {
      throw refused(
        `Image file of ${size} bytes is over ${maxBytes}, the most ${maxPixels} pixels can need (maxImagePixels)`,
      );
    }
    let bytes = await readFully(file, Math.min(size, HEAD_BYTES));
    let header: ImageHeader;
    try {
      header = imageHeader(bytes);
    } catch (error) {
      if (bytes.length >= size) throw error;
      bytes = concat(bytes, await readFully(file, size - bytes.length));
      header = imageHeader(bytes);
    }
    checkPixels(header, maxPixels);
    return bytes.length >= size ? bytes : concat(bytes, await readFully(file, size - bytes.length));
  } finally {
    file.close();
  }
}

async function readFully(file: Deno.FsFile, length: number): Promise<Uint8Array> {
  const buf = new Uint8Array(length);
  let got = 0;
  while (got < length) {
    const n = await file.read(buf.subarray(got));
    if (n === null) break;
    got += n;
  }
  return buf.subarray(0, got);
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/**
 * The most pixels decoded by one job, for the pool's recycling
 * (`takeDecodedPixels`): those the decoder gave, not the header's, so a
 * JPEG decoded at 1/8 counts a 64th of its pixels.
 */
let decodedPixels = 0;

/** The most pixels any decode held since the last call, and starts counting again. */
export function takeDecodedPixels(): number {
  const pixels = decodedPixels;
  decodedPixels = 0;
  return pixels;
}

/**
 * Decodes a PNG or JPEG (by its bytes, not its name) to an upright opaque
 * raster, once its header is within `maxPixels`. A JPEG is decoded at the
 * smallest scale that still covers `minSide` (null: full size) and turned by
 * its EXIF orientation; imagescript decodes it, mozjpeg is tried when
 * imagescript fails (as it does on some phone JPEGs).
 * @throws {RenderError} CORRUPT_MEDIA over the limit; an Error when nothing can decode it
 */
export async function decodeImage(
  bytes: Uint8Array,
  minSide: number | null,
  maxPixels: number,
): Promise<Raster> {
  const header = imageHeader(bytes);
  checkPixels(header, maxPixels);
  let raster: Raster;
  if (header.format === "png") {
    checkWholeDecode(header);
    raster = await decodePng(bytes);
  } else {
    try {
      raster = await decodeJpegScaled(bytes, minSide);
    } catch {
      raster = await decodeJpegFull(bytes);
    }
    raster = applyOrientation(raster, jpegOrientation(bytes));
  }
  // A decoder that disagrees with the header is not trusted either.
  checkPixels({ ...header, width: raster.width, height: raster.height }, maxPixels);
  decodedPixels = Math.max(decodedPixels, raster.width * raster.height);
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
