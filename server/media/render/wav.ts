/**
 * WAV in pure TypeScript: the header (PCM 8/16/24/32-bit integer, 32/64-bit
 * float, any channel count, WAVE_FORMAT_EXTENSIBLE) and a streaming read of
 * the samples in large blocks, so memory stays small for long files.
 * @module
 */
import { RenderError } from "./types.ts";
import { MAX_CHUNKS } from "../../../protocol/media_limits.ts";

/** What the header says. */
export interface WavFormat {
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
  isFloat: boolean;
  blockAlign: number;
  dataOffset: number;
  /** Frames actually present (a truncated file has fewer than its header claims). */
  frames: number;
}

const PCM = 1, FLOAT = 3, EXTENSIBLE = 0xfffe;

function corrupt(detail: string): RenderError {
  return new RenderError("CORRUPT_MEDIA", `Corrupt WAV: ${detail}`);
}

/**
 * Reads the header of an open WAV file. Returns null for a WAV whose codec is
 * not PCM or float (e.g. A-law, ADPCM, MP3 in WAV): ffmpeg can still read it.
 */
export async function readWavFormat(file: Deno.FsFile, size: number): Promise<WavFormat | null> {
  const head = new Uint8Array(Math.min(size, 1 << 16));
  await file.seek(0, Deno.SeekMode.Start);
  await readFully(file, head);
  const v = new DataView(head.buffer);
  const id = (o: number) => String.fromCharCode(...head.subarray(o, o + 4));
  if (head.length < 12 || id(0) !== "RIFF" || id(8) !== "WAVE") {
    throw corrupt("no RIFF/WAVE header");
  }
  let offset = 12;
  let fmt: Omit<WavFormat, "dataOffset" | "frames"> | null = null;
  let codec = 0;
  for (let chunks = 0; offset + 8 <= size; chunks++) {
    if (chunks >= MAX_CHUNKS) {
      throw corrupt(`more than ${MAX_CHUNKS} chunks before its "fmt " and "data" chunks`);
    }
    let chunkId: string, chunkSize: number;
    if (offset + 8 <= head.length) {
      chunkId = id(offset);
      chunkSize = v.getUint32(offset + 4, true);
    } else {
      const h = new Uint8Array(8);
      await file.seek(offset, Deno.SeekMode.Start);
      await readFully(file, h);
      chunkId = String.fromCharCode(...h.subarray(0, 4));
      chunkSize = new DataView(h.buffer).getUint32(4, true);
    }
    if (chunkId === "fmt ") {
      if (chunkSize < 16 || offset + 8 + 16 > head.length) throw corrupt("short fmt chunk");
      const f = offset + 8;
      codec = v.getUint16(f, true);
      if (codec === EXTENSIBLE) {
        if (chunkSize < 40 || f + 26 > head.length) throw corrupt("short extensible fmt chunk");
        codec = v.getUint16(f + 24, true); // the sub-format GUID starts with the codec
      }
      fmt = {
        channels: v.getUint16(f + 2, true),
        sampleRate: v.getUint32(f + 4, true),
        blockAlign: v.getUint16(f + 12, true),
        bitsPerSample: v.getUint16(f + 14, true),
        isFloat: codec === FLOAT,
      };
    } else if (chunkId === "data") {
      if (!fmt) throw corrupt("data chunk before the fmt chunk");
      if (codec !== PCM && codec !== FLOAT) return null;
      checkFormat(fmt);
      const dataOffset = offset + 8;
      const available = Math.min(chunkSize, size - dataOffset);
      return { ...fmt, dataOffset, frames: Math.floor(available / fmt.blockAlign) };
    }
    offset += 8 + chunkSize + (chunkSize % 2);
  }
  throw corrupt(fmt ? "no data chunk" : "no fmt chunk");
}

function checkFormat(f: Omit<WavFormat, "dataOffset" | "frames">): void {
  const valid = f.isFloat ? [32, 64] : [8, 16, 24, 32];
  if (!valid.includes(f.bitsPerSample)) {
    throw corrupt(`unsupported ${f.isFloat ? "float" : "integer"} sample size ${f.bitsPerSample}`);
  }
  if (f.channels < 1 || f.sampleRate < 1) throw corrupt("zero channels or sample rate");
  if (f.blockAlign !== f.channels * f.bitsPerSample / 8) {
    throw corrupt(`block align ${f.blockAlign} does not match ${f.channels} channels`);
  }
}

async function readFully(file: Deno.FsFile, buf: Uint8Array): Promise<number> {
  let got = 0;
  while (got < buf.length) {
    const n = await file.read(buf.subarray(got));
    if (n === null) break;
    got += n;
  }
  return got;
}

/**
 * Streams the samples as floats in -1..1: `onBlock(samples, frames)` gets
 * interleaved channels, a block of up to about 4 MiB of the file at a time.
 */
export async function readWavSamples(
  file: Deno.FsFile,
  f: WavFormat,
  onBlock: (samples: Float32Array, frames: number) => void,
): Promise<void> {
  const framesPerBlock = Math.max(1, Math.floor((4 << 20) / f.blockAlign));
  const raw = new Uint8Array(framesPerBlock * f.blockAlign);
  const floats = new Float32Array(framesPerBlock * f.channels);
  await file.seek(f.dataOffset, Deno.SeekMode.Start);
  for (let done = 0; done < f.frames;) {
    const want = Math.min(framesPerBlock, f.frames - done);
    const got = Math.floor(
      (await readFully(file, raw.subarray(0, want * f.blockAlign))) / f.blockAlign,
    );
    if (got === 0) break;
    const n = got * f.channels;
    toFloats(raw, n, f, floats);
    onBlock(floats.subarray(0, n), got);
    done += got;
  }
}

/** The first `n` samples of `raw` in the file's encoding, to floats (little-endian machine). */
function toFloats(raw: Uint8Array, n: number, f: WavFormat, out: Float32Array): void {
  const buf = raw.buffer;
  switch (f.isFloat ? -f.bitsPerSample : f.bitsPerSample) {
    case -32:
      out.set(new Float32Array(buf, 0, n));
      return;
    case -64: {
      const d = new Float64Array(buf, 0, n);
      for (let i = 0; i < n; i++) out[i] = d[i]!;
      return;
    }
    case 8:
      for (let i = 0; i < n; i++) out[i] = (raw[i]! - 128) / 128;
      return;
    case 16: {
      const d = new Int16Array(buf, 0, n);
      for (let i = 0; i < n; i++) out[i] = d[i]! / 32768;
      return;
    }
    case 24:
      for (let i = 0, j = 0; i < n; i++, j += 3) {
        out[i] = ((raw[j]! | raw[j + 1]! << 8 | raw[j + 2]! << 16) << 8 >> 8) / 8388608;
      }
      return;
    default: {
      const d = new Int32Array(buf, 0, n);
      for (let i = 0; i < n; i++) out[i] = d[i]! / 2147483648;
    }
  }
}
