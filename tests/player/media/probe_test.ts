import assert from "node:assert/strict";
import { encodePng, encodeWav } from "../../../player/media/encode.ts";
import { fileSource, MediaError, memorySource, probeMedia } from "../../../player/media/probe.ts";
import { jpeg, mp4 } from "../../../tools/testing/media.ts";
import { chunkBombWav } from "../../../tools/reliability/_media_bombs.ts";

Deno.test("probeMedia() measures PNG dimensions", async () => {
  const png = encodePng(3, 2, new Uint8Array(3 * 2 * 4));
  assert.deepEqual(await probeMedia(memorySource(png)), {
    kind: "image",
    mimeType: "image/png",
    width: 3,
    height: 2,
    duration: null,
  });
});

Deno.test("probeMedia() measures JPEG dimensions after other segments", async () => {
  const info = await probeMedia(memorySource(jpeg(640, 360)));
  assert.deepEqual([info.kind, info.mimeType, info.width, info.height], [
    "image",
    "image/jpeg",
    640,
    360,
  ]);
});

Deno.test("probeMedia() measures WAV duration from the data chunk", async () => {
  const wav = encodeWav(new Float32Array(22050 * 3), 22050);
  const info = await probeMedia(memorySource(wav));
  assert.deepEqual([info.kind, info.mimeType, info.duration], ["audio", "audio/wav", 3]);
});

Deno.test("probeMedia() reads MP4 and MOV duration and size with moov after mdat", async () => {
  const info = await probeMedia(memorySource(mp4("isom", 600, 4500, 1280, 720)));
  assert.deepEqual(info, {
    kind: "video",
    mimeType: "video/mp4",
    width: 1280,
    height: 720,
    duration: 7.5,
  });
  const mov = await probeMedia(memorySource(mp4("qt  ", 1000, 2000, 320, 240)));
  assert.equal(mov.mimeType, "video/quicktime");
  assert.equal(mov.duration, 2);
});

Deno.test("probeMedia() reads from a file by random access", async () => {
  const path = await Deno.makeTempFile();
  try {
    await Deno.writeFile(path, mp4("isom", 1000, 12_000, 64, 48));
    const src = await fileSource(path);
    try {
      assert.equal((await probeMedia(src)).duration, 12);
    } finally {
      src.close();
    }
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("probeMedia() refuses unknown and corrupt bytes with stable codes", async () => {
  const unknown = await probeMedia(memorySource(new TextEncoder().encode("hello world, not media")))
    .catch((e) => e);
  assert.ok(unknown instanceof MediaError);
  assert.equal(unknown.code, "UNSUPPORTED_MEDIA");
  const truncated = encodeWav(new Float32Array(10), 8000).subarray(0, 30);
  const corrupt = await probeMedia(memorySource(truncated)).catch((e) => e);
  assert.equal(corrupt.code, "CORRUPT_MEDIA");
  const badMp4 = mp4("isom", 0, 10, 1, 1);
  assert.equal((await probeMedia(memorySource(badMp4)).catch((e) => e)).code, "CORRUPT_MEDIA");
});

Deno.test("probeMedia() refuses a PNG cut short, at any length, as CORRUPT_MEDIA naming what is missing", async () => {
  const png = encodePng(64, 64, new Uint8Array(64 * 64 * 4).fill(200));
  assert.equal((await probeMedia(memorySource(png))).width, 64, "the whole file is a PNG");
  // 30 and 40 bytes: a cut inside and just after the header (both were taken as a 64 x 64 image).
  for (const length of [12, 30, 40, png.length - 20, png.length - 1]) {
    const cut = await probeMedia(memorySource(png.subarray(0, length))).catch((e) => e);
    assert.ok(cut instanceof MediaError, `${length} bytes of ${png.length}: ${cut}`);
    assert.equal(cut.code, "CORRUPT_MEDIA");
    assert.match(cut.message, /^Corrupt PNG: (missing IHDR|cut short: no IEND chunk at its end)/);
  }
});

/**
 * Probes `bytes` from a file, as an import does; returns the outcome and the work done: how
 * many reads it asked of the file and how far into it it read. A refusal "at once" is one that
 * stops after a bounded number of reads near the start, not one that beat a wall clock.
 */
async function probeFile(
  bytes: Uint8Array,
): Promise<{ outcome: unknown; reads: number; reach: number }> {
  const path = await Deno.makeTempFile();
  try {
    await Deno.writeFile(path, bytes);
    const src = await fileSource(path);
    try {
      let reads = 0, reach = 0;
      const counted = {
        size: src.size,
        read: (offset: number, length: number) => {
          reads++;
          reach = Math.max(reach, offset + length);
          return src.read(offset, length);
        },
      };
      const outcome = await probeMedia(counted).catch((e) => e);
      return { outcome, reads, reach };
    } finally {
      src.close();
    }
  } finally {
    await Deno.remove(path);
  }
}

Deno.test("probeMedia() refuses an 8 MiB WAV of a million empty chunks after its first 1000", async () => {
  const { outcome, reads, reach } = await probeFile(chunkBombWav(8 * 1024 * 1024));
  assert.ok(outcome instanceof MediaError, String(outcome));
  assert.equal(outcome.code, "CORRUPT_MEDIA");
  assert.equal(
    outcome.message,
    'Corrupt WAV: more than 1000 chunks before its "fmt " and "data" chunks',
  );
  // Stopped at the limit: 1000 chunk headers and one more, in the first 8 KiB of 8 MiB.
  assert.ok(reads <= 1001, `${reads} reads`);
  assert.ok(reach < 64 * 1024, `read up to byte ${reach}`);
});

Deno.test("probeMedia() reads a WAV whose fmt and data follow 998 other chunks", async () => {
  const { outcome } = await probeFile(chunkBombWav(0, { chunks: 998 }));
  assert.deepEqual(outcome, {
    kind: "audio",
    mimeType: "audio/wav",
    width: null,
    height: null,
    duration: 1,
  });
});

Deno.test("probeMedia() walks at most 1000 JPEG segments and 10000 MP4 boxes", async () => {
  const fill = new Uint8Array(8 * 1024 * 1024).fill(0xff); // fill bytes where a marker goes
  fill.set([0xff, 0xd8, 0xff]);
  const segments = new Uint8Array(8 * 1024 * 1024); // empty COM segments, 4 bytes each
  segments.set([0xff, 0xd8]);
  for (let at = 2; at + 4 <= segments.length; at += 4) segments.set([0xff, 0xfe, 0, 2], at);
  const boxes = new Uint8Array(8 * 1024 * 1024); // empty "free" boxes, 8 bytes each
  for (let at = 0; at + 8 <= boxes.length; at += 8) {
    boxes.set([0, 0, 0, 8, 0x66, 0x72, 0x65, 0x65], at);
  }
  for (
    const [bytes, message] of [
      [fill, "Corrupt JPEG: more than 1000 segments before its frame header"],
      [segments, "Corrupt JPEG: more than 1000 segments before its frame header"],
      [boxes, 'Corrupt MP4: more than 10000 boxes before its "moov" box'],
    ] as const
  ) {
    const { outcome, reads, reach } = await probeFile(bytes);
    assert.ok(outcome instanceof MediaError, String(outcome));
    assert.equal(outcome.message, message);
    const limit = message.includes("MP4") ? 10_000 : 1000; // one read per box or segment
    assert.ok(reads <= limit + 1, `${message}: ${reads} reads`);
    assert.ok(reach < 1024 * 1024, `${message}: read up to byte ${reach} of ${bytes.length}`);
  }
});
