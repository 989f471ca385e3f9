/**
 * Small encoders for the media the player generates itself (the demo project):
 * PNG from RGBA pixels and 16-bit PCM WAV from samples.
 * @module
 */
export { encodePng } from "../../lib/png.ts";

/**
 * The 44-byte header of a mono 16-bit PCM WAV file whose sample data, `dataBytes`
 * long, follows it. Tests put it before a sparse file to get a large valid WAV at once.
 * @example
 * ```ts
 * await Deno.writeFile(path, wavHeader(2 ** 30, 48_000));
 * await Deno.truncate(path, 44 + 2 ** 30); // 1 GiB of silence, written in no time
 * ```
 */
export function wavHeader(dataBytes: number, sampleRate: number): Uint8Array {
  const out = new Uint8Array(44);
  const v = new DataView(out.buffer);
  const text = (offset: number, s: string) => out.set(new TextEncoder().encode(s), offset);
  text(0, "RIFF");
  v.setUint32(4, 36 + dataBytes, true);
  text(8, "WAVE");
  text(12, "fmt ");
  v.setUint32(16, 16, true);
  v.setUint16(20, 1, true); // PCM
  v.setUint16(22, 1, true); // mono
  v.setUint32(24, sampleRate, true);
  v.setUint32(28, sampleRate * 2, true);
  v.setUint16(32, 2, true);
  v.setUint16(34, 16, true);
  text(36, "data");
  v.setUint32(40, dataBytes, true);
  return out;
}

/** Encodes mono samples in -1.0..1.0 as a 16-bit PCM WAV file. */
export function encodeWav(samples: Float32Array, sampleRate: number): Uint8Array {
  const out = new Uint8Array(44 + samples.length * 2);
  out.set(wavHeader(samples.length * 2, sampleRate));
  const v = new DataView(out.buffer);
  for (let i = 0; i < samples.length; i++) {
    const s = Math.max(-1, Math.min(1, samples[i]!));
    v.setInt16(44 + i * 2, Math.round(s * 32767), true);
  }
  return out;
}
