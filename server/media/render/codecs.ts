/**
 * The WASM codecs, compiled once per worker: imagescript's PNG and JPEG decoders
 * (the JPEG one scales by 1/2, 1/4 or 1/8 while decoding, which makes big
 * JPEGs fast), mozjpeg from `@jsquash/jpeg` for encoding and as a second JPEG
 * decoder, jpeg-js (pure JavaScript) for encoding large pictures, and
 * `lib/png.ts` (node:zlib) for PNG encoding. None needs `--allow-ffi`.
 * Measurements behind the choice: docs/media.md.
 * @module
 */
import mozjpegDecode, { init as initMozjpegDecode } from "@jsquash/jpeg/decode.js";
import mozjpegEncode, { init as initMozjpegEncode } from "@jsquash/jpeg/encode.js";
import jpegJs from "jpeg-js";
import { encodePng as encodePngPixels } from "../../../lib/png.ts";
import { compileDecoders, decodeJpeg, decodePng as decodePngSamples } from "./imagescript.ts";
import { pixelBuffer, type Raster } from "./raster.ts";

let mozjpegReady = false;

// Emscripten prints warnings ("quantization tables are too coarse") to the console.
const quiet = { print: () => {}, printErr: () => {} };

function ensureMozjpeg(): void {
  if (mozjpegReady) return;
  initMozjpegDecode(quiet);
  initMozjpegEncode(quiet);
  mozjpegReady = true;
}

/**
 * Decodes a JPEG with imagescript, scaled while decoding to the smallest
 * 1/1..1/8 scale whose sides are at least `minSide` (null: full size).
 * Throws if imagescript cannot decode it.
 */
export function decodeJpegScaled(bytes: Uint8Array, minSide: number | null): Promise<Raster> {
  return decodeJpeg(bytes, minSide ?? 0, (s) => toRgba(s.width, s.height, s.samples));
}

/** Decodes a JPEG with mozjpeg at full size (the fallback when imagescript fails). */
export async function decodeJpegFull(bytes: Uint8Array): Promise<Raster> {
  ensureMozjpeg();
  const copy = bytes.slice();
  const image = await mozjpegDecode(copy.buffer);
  return { width: image.width, height: image.height, data: new Uint8Array(image.data.buffer) };
}

/** Decodes a PNG (any bit depth, palette, grey or alpha) to RGBA. */
export function decodePng(bytes: Uint8Array): Promise<Raster> {
  return decodePngSamples(bytes, ({ width, height, samples }) => {
    const data = pixelBuffer(width * height * 4);
    data.set(samples);
    return { width, height, data };
  });
}

/** Grey, RGB or (Adobe, inverted) CMYK samples to RGBA. */
function toRgba(width: number, height: number, buffer: Uint8Array): Raster {
  const pixels = width * height;
  const channels = Math.round(buffer.length / pixels);
  const out = pixelBuffer(pixels * 4);
  for (let p = 0, i = 0, o = 0; p < pixels; p++, i += channels, o += 4) {
    if (channels === 1) {
      out[o] = out[o + 1] = out[o + 2] = buffer[i]!;
    } else if (channels === 4) {
      const k = buffer[i + 3]! / 255;
      out[o] = Math.round(buffer[i]! * k);
      out[o + 1] = Math.round(buffer[i + 1]! * k);
      out[o + 2] = Math.round(buffer[i + 2]! * k);
    } else {
      out[o] = buffer[i]!;
      out[o + 1] = buffer[i + 1]!;
      out[o + 2] = buffer[i + 2]!;
    }
    out[o + 3] = 255;
  }
  return { width, height, data: out };
}

/** From this many pixels a JPEG is encoded by jpeg-js, not mozjpeg (`encodeJpeg`). */
export const LARGE_JPEG_PIXELS = 4_000_000;

/**
 * Encodes an opaque raster as a baseline JPEG, `quality` 1..100: with mozjpeg
 * (optimised Huffman tables, 4:2:0) up to `LARGE_JPEG_PIXELS`, beyond with
 * jpeg-js. mozjpeg's WASM memory takes a copy of the picture and keeps every
 * block's coefficients until the end (about 140 MB for a 4K picture, whatever
 * the options, and a WASM memory never shrinks); jpeg-js writes each block as
 * it goes, from the picture where it is (4K: 0.7-1.1 s against mozjpeg's
 * 1.2-1.5 s, a file about a third larger). Baseline rather than progressive:
 * faster to encode at thumbnail sizes and read by every decoder, even small ones.
 */
export async function encodeJpeg(r: Raster, quality: number): Promise<Uint8Array> {
  const q = Math.min(100, Math.max(1, Math.round(quality)));
  if (r.width * r.height >= LARGE_JPEG_PIXELS) {
    const { data } = jpegJs.encode({ data: r.data, width: r.width, height: r.height }, q);
    return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  }
  ensureMozjpeg();
  const data = new Uint8ClampedArray(r.data.buffer, r.data.byteOffset, r.data.byteLength);
  const encoded = await mozjpegEncode(
    { data, width: r.width, height: r.height, colorSpace: "srgb" } as ImageData,
    { quality: q, progressive: false },
  );
  return new Uint8Array(encoded);
}

/** Encodes a raster as an 8-bit RGBA PNG (filter "up": rows of a thumbnail or waveform repeat a lot). */
export function encodePng(r: Raster): Uint8Array {
  return encodePngPixels(r.width, r.height, r.data, { filter: "up" });
}

/**
 * Compiles and instantiates every codec ahead of the first job (about 40 ms
 * of WASM compilation), so a worker started with the service answers its
 * first thumbnail as fast as the later ones.
 */
export async function warmUpCodecs(): Promise<void> {
  const pixel: Raster = { width: 8, height: 8, data: new Uint8Array(8 * 8 * 4).fill(255) };
  const jpeg = await encodeJpeg(pixel, 85);
  await Promise.all([compileDecoders(), decodeJpegFull(jpeg)]);
}
