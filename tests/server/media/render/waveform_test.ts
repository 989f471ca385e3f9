import assert from "node:assert/strict";
import { render, RenderError, type SourceFile } from "../../../../server/media/render/mod.ts";
import type { Raster } from "../../../../server/media/render/raster.ts";
import {
  decoded,
  ffmpeg,
  isPngBytes,
  source,
  tempDir,
  wav,
  type WavEncoding,
} from "./_fixtures.ts";
import { readWavFormat } from "../../../../server/media/render/wav.ts";
import { needs } from "../../../../tools/testing/peers.ts";
import { chunkBombWav } from "../../../../tools/reliability/_media_bombs.ts";

function waveform(src: SourceFile, ffmpegPath: string | null = null, width = 100, height = 60) {
  return render({ type: "waveform", source: src, width, height, ffmpeg: ffmpegPath });
}

/** How many pixels of each column are drawn (alpha above half). */
function columnHeights(r: Raster): number[] {
  const heights: number[] = [];
  for (let x = 0; x < r.width; x++) {
    let n = 0;
    for (let y = 0; y < r.height; y++) if (r.data[(y * r.width + x) * 4 + 3]! > 127) n++;
    heights.push(n);
  }
  return heights;
}

/** A 440 Hz tone whose amplitude grows linearly from 0 to 1 over one second. */
const fadeIn = (rate: number) => (f: number) =>
  (f / rate) * Math.sin((2 * Math.PI * 440 * f) / rate);

function assertGrowing(heights: number[], label: string): void {
  // Each tenth of the picture is taller than the one before; the end nearly fills it.
  const tenths = Array.from({ length: 10 }, (_, i) => heights[i * 10 + 5]!);
  for (let i = 1; i < tenths.length; i++) {
    assert.ok(tenths[i]! > tenths[i - 1]!, `${label}: ${tenths.join(" ")}`);
  }
  assert.ok(tenths[9]! >= 50, `${label}: ends at ${tenths[9]}`);
}

Deno.test("render() waveform of a fading-in tone draws a growing envelope", async () => {
  const dir = await tempDir();
  try {
    const path = `${dir}/fade.wav`;
    const tone = fadeIn(8000);
    const encoding = { bits: 16, isFloat: false } as const;
    await Deno.writeFile(
      path,
      wav({ encoding, channels: 1, sampleRate: 8000, frames: 8000, sample: tone }),
    );
    const r = await waveform(source(path, "audio"));
    assert.ok(isPngBytes(r.bytes));
    assert.deepEqual([r.contentType, r.width, r.height], ["image/png", 100, 60]);
    const image = await decoded(r.bytes);
    assert.deepEqual([image.width, image.height], [100, 60]);
    assertGrowing(columnHeights(image), "16-bit mono");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("render() waveform reads every WAV sample format and channel layout", async () => {
  const dir = await tempDir();
  try {
    const encodings: WavEncoding[] = [
      { bits: 8, isFloat: false },
      { bits: 16, isFloat: false },
      { bits: 24, isFloat: false },
      { bits: 32, isFloat: false },
      { bits: 32, isFloat: true },
      { bits: 64, isFloat: true },
    ];
    const tone = fadeIn(8000);
    let reference: number[] | null = null;
    for (const encoding of encodings) {
      for (const [channels, extensible] of [[1, false], [2, false], [6, true]] as const) {
        const label = `${encoding.isFloat ? "float" : "int"}${encoding.bits} x${channels}`;
        const path = `${dir}/${label}.wav`;
        // Channel 0 carries the tone, the others are silent or quieter: the envelope covers all.
        const sample = (f: number, c: number) => (c === 0 ? tone(f) : tone(f) * 0.25);
        await Deno.writeFile(
          path,
          wav({ encoding, channels, sampleRate: 8000, frames: 8000, extensible, sample }),
        );
        const heights = columnHeights(await decoded((await waveform(source(path, "audio"))).bytes));
        assertGrowing(heights, label);
        reference ??= heights;
        heights.forEach((h, i) =>
          assert.ok(Math.abs(h - reference![i]!) <= 2, `${label} col ${i}`)
        );
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("render() waveform of a truncated WAV draws what is there; of silence a centre line", async () => {
  const dir = await tempDir();
  try {
    const full = wav({
      encoding: { bits: 16, isFloat: false },
      channels: 1,
      sampleRate: 8000,
      frames: 8000,
      sample: fadeIn(8000),
    });
    await Deno.writeFile(`${dir}/cut.wav`, full.subarray(0, full.length / 2));
    const cut = columnHeights(
      await decoded((await waveform(source(`${dir}/cut.wav`, "audio"))).bytes),
    );
    assertGrowing(cut, "truncated");
    const silence = wav({
      encoding: { bits: 16, isFloat: false },
      channels: 2,
      sampleRate: 8000,
      frames: 800,
      sample: () => 0,
    });
    await Deno.writeFile(`${dir}/silence.wav`, silence);
    const flat = columnHeights(
      await decoded((await waveform(source(`${dir}/silence.wav`, "audio"))).bytes),
    );
    assert.ok(flat.every((h) => h >= 1 && h <= 2), flat.join(" "));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("render() waveform of a corrupt WAV is CORRUPT_MEDIA", async () => {
  const dir = await tempDir();
  try {
    const header = new TextEncoder().encode("RIFF\x24\x00\x00\x00WAVEjunk\x04\x00\x00\x00abcd");
    for (
      const [name, bytes] of [["nofmt.wav", header], [
        "garbage.wav",
        new Uint8Array([82, 73, 70, 70, 0, 0, 0, 0, 87, 65, 86, 69, 102, 109, 116, 32, 2, 0, 0, 0]),
      ]] as const
    ) {
      await Deno.writeFile(`${dir}/${name}`, bytes);
      await assert.rejects(
        waveform(source(`${dir}/${name}`, "audio")),
        (e) =>
          e instanceof RenderError && e.code === "CORRUPT_MEDIA" && /Corrupt WAV/.test(e.message),
      );
    }
    // A header whose block align disagrees with its channels and sample size.
    const bad = wav({
      encoding: { bits: 16, isFloat: false },
      channels: 2,
      sampleRate: 8000,
      frames: 10,
      sample: () => 0,
    });
    new DataView(bad.buffer).setUint16(32, 3, true);
    await Deno.writeFile(`${dir}/align.wav`, bad);
    await assert.rejects(
      waveform(source(`${dir}/align.wav`, "audio")),
      (e) => e instanceof RenderError && e.code === "CORRUPT_MEDIA",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("render() waveform of a non-audio file is UNSUPPORTED_MEDIA", async () => {
  for (const kind of ["image", "video"] as const) {
    await assert.rejects(
      waveform(source("/nonexistent/x", kind)),
      (e) => e instanceof RenderError && e.code === "UNSUPPORTED_MEDIA",
    );
  }
});

Deno.test(
  "render() waveform of other audio goes through ffmpeg, UNAVAILABLE without it",
  needs("ffmpeg"),
  async () => {
    const dir = await tempDir();
    try {
      const path = `${dir}/fade.m4a`;
      // One second of a 440 Hz tone fading in, AAC in MP4, no video.
      await ffmpeg(
        ...["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=1"],
        ...["-af", "volume='t':eval=frame", "-c:a", "aac", path],
      );
      const src = source(path, "audio", { mimeType: "audio/mp4" });
      const r = await waveform(src, "ffmpeg");
      assertGrowing(columnHeights(await decoded(r.bytes)), "ffmpeg m4a");
      for (const missing of [null, "/nonexistent/ffmpeg"]) {
        await assert.rejects(
          waveform(src, missing),
          (e) => e instanceof RenderError && e.code === "UNAVAILABLE" && /ffmpeg/.test(e.message),
        );
      }
      await Deno.writeFile(`${dir}/bad.m4a`, new Uint8Array(64));
      await assert.rejects(
        waveform(source(`${dir}/bad.m4a`, "audio"), "ffmpeg"),
        (e) => e instanceof RenderError && e.code === "CORRUPT_MEDIA",
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);

Deno.test("render() waveform of a WAV of a million empty chunks is CORRUPT_MEDIA within its first 64 KiB", async () => {
  const dir = await tempDir();
  try {
    await Deno.writeFile(`${dir}/bomb.wav`, chunkBombWav(8 * 1024 * 1024));
    const chunkLimit = (e: unknown) =>
      e instanceof RenderError && e.code === "CORRUPT_MEDIA" &&
      e.message === 'Corrupt WAV: more than 1000 chunks before its "fmt " and "data" chunks';
    await assert.rejects(waveform(source(`${dir}/bomb.wav`, "audio")), chunkLimit);
    // The work done, not the time: the header walk stops in the first 64 KiB it reads at
    // once, where a walk of every chunk would seek on to the end of the 8 MiB.
    const file = await Deno.open(`${dir}/bomb.wav`, { read: true });
    try {
      await assert.rejects(readWavFormat(file, (await file.stat()).size), chunkLimit);
      assert.equal(await file.seek(0, Deno.SeekMode.Current), 64 * 1024);
    } finally {
      file.close();
    }
    // Past 998 chunks, a valid fmt and data are still found.
    await Deno.writeFile(`${dir}/odd.wav`, chunkBombWav(0, { chunks: 998 }));
    assert.equal((await waveform(source(`${dir}/odd.wav`, "audio"))).width, 100);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
