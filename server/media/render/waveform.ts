/**
 * A waveform job: peaks per pixel column of an audio file, drawn as a PNG
 * with a transparent background. WAV is read in pure TypeScript; other audio
 * is decoded by ffmpeg (downmixed to stereo and resampled to 8 kHz by it).
 * @module
 */
import { encodePng } from "./codecs.ts";
import { FfmpegError, runFfmpeg } from "./ffmpeg.ts";
import { ColumnPeaks, type Peaks } from "./peaks.ts";
import { createRaster, type Raster, type Rgba } from "./raster.ts";
import { type Rendered, RenderError, type RenderJob } from "./types.ts";
import { readWavFormat, readWavSamples } from "./wav.ts";

/** Milliseconds ffmpeg gets to decode a file's audio. */
export const AUDIO_DEADLINE_MS = 60_000;
/** The sample rate ffmpeg decimates to: plenty for a picture's columns. */
const FFMPEG_RATE = 8000;
/** Quieter files are drawn larger, up to this gain (so noise never fills the picture). */
const MAX_GAIN = 256;
const PEAK: Rgba = [147, 197, 253, 255];
const BODY: Rgba = [37, 99, 235, 255];

type WaveformJob = Extract<RenderJob, { type: "waveform" }>;

/** Renders a waveform PNG of `width x height`. */
export async function renderWaveform(job: WaveformJob): Promise<Rendered> {
  const { width, height, source } = job;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    throw new RangeError(
      `Cannot draw a waveform of ${width}x${height}: sides must be whole and positive`,
    );
  }
  if (source.kind !== "audio") {
    throw new RenderError(
      "UNSUPPORTED_MEDIA",
      `Cannot draw a waveform of a ${source.kind} file: it has no audio of its own`,
    );
  }
  const peaks = (await wavPeaks(source.path, width)) ?? await ffmpegPeaks(job);
  const raster = drawWaveform(peaks, width, height);
  return { bytes: encodePng(raster), contentType: "image/png", width, height, origin: "card" };
}

/** Peaks of a PCM or float WAV, or null when the file is no such WAV. */
async function wavPeaks(path: string, width: number): Promise<Peaks | null> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch (error) {
    throw new RenderError("CORRUPT_MEDIA", `Cannot read the audio file: ${(error as Error).name}`);
  }
  try {
    const size = (await file.stat()).size;
    const magic = new Uint8Array(12);
    await file.read(magic);
    const isWav = String.fromCharCode(...magic.subarray(0, 4)) === "RIFF" &&
      String.fromCharCode(...magic.subarray(8, 12)) === "WAVE";
    if (!isWav) return null;
    const format = await readWavFormat(file, size);
    if (!format) return null;
    const peaks = new ColumnPeaks(width, format.frames, format.channels);
    await readWavSamples(file, format, (samples, frames) => peaks.add(samples, frames));
    return peaks.result();
  } finally {
    file.close();
  }
}

/**
 * Peaks of any audio ffmpeg reads: 32-bit float stereo at 8 kHz from a pipe,
 * kept as 4 ms blocks (the length is unknown until the end), then folded
 * into the columns.
 */
async function ffmpegPeaks(job: WaveformJob): Promise<Peaks> {
  if (job.ffmpeg === null) {
    throw new RenderError(
      "UNAVAILABLE",
      `Cannot draw the waveform of "${job.source.name}": ffmpeg is needed for ${job.source.mimeType} audio other than PCM WAV`,
    );
  }
  const BLOCK = 32, CH = 2, BLOCK_BYTES = BLOCK * CH * 4;
  const blocks: number[] = []; // min, max, sum of squares per block
  let rest = new Uint8Array(0);
  try {
    await runFfmpeg({
      command: job.ffmpeg,
      args: [
        ...["-i", job.source.path, "-vn", "-ac", String(CH), "-ar", String(FFMPEG_RATE)],
        ...["-f", "f32le", "pipe:1"],
      ],
      deadlineMs: AUDIO_DEADLINE_MS,
      onData(chunk) {
        const joined = new Uint8Array(rest.length + chunk.length);
        joined.set(rest);
        joined.set(chunk, rest.length);
        const whole = joined.length - (joined.length % BLOCK_BYTES);
        const floats = new Float32Array(joined.buffer, 0, whole / 4);
        for (let b = 0; b < floats.length; b += BLOCK * CH) {
          let lo = Infinity, hi = -Infinity, sq = 0;
          for (let i = b; i < b + BLOCK * CH; i++) {
            const s = floats[i]!;
            if (s < lo) lo = s;
            if (s > hi) hi = s;
            sq += s * s;
          }
          blocks.push(lo, hi, sq);
        }
        rest = joined.slice(whole);
      },
    });
  } catch (error) {
    if (error instanceof FfmpegError && error.reason === "failed") {
      throw new RenderError(
        "CORRUPT_MEDIA",
        `Cannot decode the audio of "${job.source.name}": ${error.message}`,
      );
    }
    throw new RenderError("UNAVAILABLE", `Cannot draw the waveform: ${(error as Error).message}`);
  }
  return foldBlocks(blocks, job.width, BLOCK * CH);
}

/** Folds (min, max, sum of squares) blocks of `samplesPerBlock` samples into `width` columns. */
function foldBlocks(blocks: number[], width: number, samplesPerBlock: number): Peaks {
  const count = blocks.length / 3;
  const min = new Float32Array(width), max = new Float32Array(width);
  const rms = new Float32Array(width);
  for (let c = 0; c < width; c++) {
    const start = Math.floor((c * count) / width);
    const end = Math.min(count, Math.max(start + 1, Math.floor(((c + 1) * count) / width)));
    if (start >= end) continue;
    let lo = Infinity, hi = -Infinity, sq = 0;
    for (let b = start; b < end; b++) {
      lo = Math.min(lo, blocks[b * 3]!);
      hi = Math.max(hi, blocks[b * 3 + 1]!);
      sq += blocks[b * 3 + 2]!;
    }
    min[c] = lo;
    max[c] = hi;
    rms[c] = Math.sqrt(sq / ((end - start) * samplesPerBlock));
  }
  return { min, max, rms };
}

/**
 * Draws the columns: a bar from each column's lowest to highest sample
 * (light), its RMS band (strong), both mirrored about the middle line. The
 * scale is linear and peak-normalised: the loudest sample of the file reaches
 * the edges (gain at most 256, i.e. -48 dBFS fills the picture).
 */
export function drawWaveform(peaks: Peaks, width: number, height: number): Raster {
  const raster = createRaster(width, height, [0, 0, 0, 0]);
  let peak = 0;
  for (let c = 0; c < width; c++) {
    peak = Math.max(peak, Math.abs(peaks.min[c]!), Math.abs(peaks.max[c]!));
  }
  const gain = Math.min(MAX_GAIN, peak > 0 ? 1 / peak : 1);
  const mid = height / 2, half = height / 2;
  for (let c = 0; c < width; c++) {
    let top = mid - Math.min(1, peaks.max[c]! * gain) * half;
    let bottom = mid - Math.max(-1, peaks.min[c]! * gain) * half;
    if (bottom - top < 1) { // silence still draws a one-pixel line
      const centre = (top + bottom) / 2;
      top = centre - 0.5;
      bottom = centre + 0.5;
    }
    span(raster, c, top, bottom, PEAK);
    const r = Math.min(1, peaks.rms[c]! * gain) * half;
    if (r > 0) span(raster, c, mid - r, mid + r, BODY);
  }
  return raster;
}

/** Paints column x from y = top to y = bottom, partial coverage at both ends. */
function span(r: Raster, x: number, top: number, bottom: number, colour: Rgba): void {
  const d = r.data;
  for (let y = Math.max(0, Math.floor(top)); y < Math.min(r.height, Math.ceil(bottom)); y++) {
    const cover = Math.min(bottom, y + 1) - Math.max(top, y);
    if (cover <= 0) continue;
    const i = (y * r.width + x) * 4;
    const a = cover * colour[3] / 255, da = d[i + 3]! / 255;
    const outA = a + da * (1 - a);
    for (let k = 0; k < 3; k++) {
      d[i + k] = Math.round((colour[k]! * a + d[i + k]! * da * (1 - a)) / outA);
    }
    d[i + 3] = Math.round(outA * 255);
  }
}
