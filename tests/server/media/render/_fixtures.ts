/** Media files made on the spot for the render tests, and decoders for what render returns. */
import { decodePng, encodeJpeg, encodePng } from "../../../../server/media/render/codecs.ts";
import { decodeImage } from "../../../../server/media/render/image.ts";
import type { Raster } from "../../../../server/media/render/raster.ts";
import type { SourceFile } from "../../../../server/media/render/mod.ts";
import { SETTING_DEFAULTS } from "../../../../protocol/settings.ts";

/** The pixels a thumbnail job may decode: the setting's default, as the service would pass it. */
export const MAX_PIXELS: number = SETTING_DEFAULTS.maxImagePixels;

/** A temp dir for one test; remove it with `Deno.remove(dir, { recursive: true })`. */
export function tempDir(): Promise<string> {
  return Deno.makeTempDir({ prefix: "cueport-render-" });
}

/** A raster painted by `colour(x, y)`. */
export function paint(
  width: number,
  height: number,
  colour: (x: number, y: number) => readonly [number, number, number],
): Raster {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) data.set([...colour(x, y), 255], (y * width + x) * 4);
  }
  return { width, height, data };
}

/** Writes a raster as a PNG or JPEG file. */
export async function writeImage(path: string, r: Raster, format: "png" | "jpeg"): Promise<void> {
  await Deno.writeFile(path, format === "png" ? encodePng(r) : await encodeJpeg(r, 95));
}

/** A SourceFile for a path. */
export function source(
  path: string,
  kind: SourceFile["kind"],
  extra: Partial<SourceFile> = {},
): SourceFile {
  const mimeType = { image: "image/png", video: "video/mp4", audio: "audio/wav" }[kind];
  return { path, kind, name: path.split("/").pop()!, mimeType, duration: null, ...extra };
}

/** Decodes a PNG or JPEG that render returned (PNG keeps its alpha). */
export async function decoded(bytes: Uint8Array): Promise<Raster> {
  return isPngBytes(bytes) ? await decodePng(bytes) : await decodeImage(bytes, null, MAX_PIXELS);
}

/** Whether the bytes carry the PNG signature. */
export function isPngBytes(b: Uint8Array): boolean {
  return [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((v, i) => b[i] === v);
}

/** Whether the bytes carry the JPEG start-of-image marker. */
export function isJpegBytes(b: Uint8Array): boolean {
  return b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff;
}

/** The RGBA of a pixel. */
export function pixel(r: Raster, x: number, y: number): number[] {
  const i = (y * r.width + x) * 4;
  return [...r.data.subarray(i, i + 4)];
}

/** Whether two colours differ by at most `tolerance` on every channel. */
export function near(a: readonly number[], b: readonly number[], tolerance = 24): boolean {
  return a.every((v, i) => Math.abs(v - b[i]!) <= tolerance);
}

/** Sample encodings a WAV can hold. */
export type WavEncoding = { bits: 8 | 16 | 24 | 32; isFloat: false } | {
  bits: 32 | 64;
  isFloat: true;
};

/**
 * A WAV file with `frames` frames of `channels` channels; `sample(frame, channel)`
 * gives each sample in -1..1. `extensible` writes WAVE_FORMAT_EXTENSIBLE.
 */
export function wav(options: {
  encoding: WavEncoding;
  channels: number;
  sampleRate: number;
  frames: number;
  extensible?: boolean;
  sample(frame: number, channel: number): number;
}): Uint8Array {
  const { encoding, channels, sampleRate, frames } = options;
  const bytesPer = encoding.bits / 8, blockAlign = bytesPer * channels;
  const fmtSize = options.extensible ? 40 : 16;
  const dataSize = frames * blockAlign;
  const out = new Uint8Array(12 + 8 + fmtSize + 8 + dataSize);
  const v = new DataView(out.buffer);
  const text = (o: number, s: string) => out.set(new TextEncoder().encode(s), o);
  text(0, "RIFF");
  v.setUint32(4, out.length - 8, true);
  text(8, "WAVE");
  text(12, "fmt ");
  v.setUint32(16, fmtSize, true);
  const codec = encoding.isFloat ? 3 : 1;
  v.setUint16(20, options.extensible ? 0xfffe : codec, true);
  v.setUint16(22, channels, true);
  v.setUint32(24, sampleRate, true);
  v.setUint32(28, sampleRate * blockAlign, true);
  v.setUint16(32, blockAlign, true);
  v.setUint16(34, encoding.bits, true);
  if (options.extensible) {
    v.setUint16(36, 22, true);
    v.setUint16(38, encoding.bits, true);
    v.setUint32(40, (1 << channels) - 1, true);
    v.setUint16(44, codec, true); // the sub-format GUID begins with the codec
    out.set(
      [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71],
      46,
    );
  }
  const data = 20 + fmtSize;
  text(data, "data");
  v.setUint32(data + 4, dataSize, true);
  let o = data + 8;
  for (let f = 0; f < frames; f++) {
    for (let c = 0; c < channels; c++, o += bytesPer) {
      const s = Math.max(-1, Math.min(1, options.sample(f, c)));
      if (encoding.isFloat && encoding.bits === 32) v.setFloat32(o, s, true);
      else if (encoding.isFloat) v.setFloat64(o, s, true);
      else if (encoding.bits === 8) v.setUint8(o, Math.round(s * 127) + 128);
      else if (encoding.bits === 16) v.setInt16(o, Math.round(s * 32767), true);
      else if (encoding.bits === 24) {
        const n = Math.round(s * 8388607);
        v.setUint8(o, n & 255);
        v.setUint8(o + 1, (n >> 8) & 255);
        v.setUint8(o + 2, (n >> 16) & 255);
      } else v.setInt32(o, Math.round(s * 2147483647), true);
    }
  }
  return out;
}

/** Runs ffmpeg with `args` (lavfi sources), failing the test if it cannot. */
export async function ffmpeg(...args: string[]): Promise<void> {
  const { success, stderr } = await new Deno.Command("ffmpeg", {
    args: ["-hide_banner", "-loglevel", "error", "-y", ...args],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!success) throw new Error(`ffmpeg failed: ${new TextDecoder().decode(stderr)}`);
}
