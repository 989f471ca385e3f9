import assert from "node:assert/strict";
import { encodePng, encodeWav } from "../../../player/media/encode.ts";
import { fileSource, MediaError, memorySource, probeMedia } from "../../../player/media/probe.ts";
import { jpeg, mp4 } from "../../_helpers/media.ts";

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
