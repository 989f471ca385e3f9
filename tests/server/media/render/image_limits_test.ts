import assert from "node:assert/strict";
import { encodeJpeg } from "../../../../server/media/render/codecs.ts";
import {
  decodeImage,
  MAX_PNG_DECODE_PIXELS,
  takeDecodedPixels,
} from "../../../../server/media/render/image.ts";
import { render, type RenderJob } from "../../../../server/media/render/mod.ts";
import {
  jpegHeaderBomb,
  pngHeaderBomb,
  pngZeros,
} from "../../../../tools/reliability/_media_bombs.ts";
import { MAX_PIXELS, paint, source, tempDir, writeImage } from "./_fixtures.ts";

const MB = 1024 * 1024;

function thumbnail(path: string, size: number | null, maxPixels: number) {
  // Built loosely so the test reads the same with and without the field it checks.
  const job = {
    type: "thumbnail",
    source: source(path, "image"),
    size,
    overlay: "none",
    format: "jpeg",
    quality: 85,
    ffmpeg: null,
    maxPixels,
  } as RenderJob;
  return render(job);
}

Deno.test("render() thumbnail of an image whose header declares too many pixels is a card, not decoded", async () => {
  const dir = await tempDir();
  try {
    await Deno.writeFile(`${dir}/bomb.jpg`, jpegHeaderBomb(30_000, 30_000));
    await Deno.writeFile(`${dir}/bomb.png`, pngHeaderBomb(8000, 8000));
    for (const name of ["bomb.jpg", "bomb.png"]) {
      for (const size of [64, null]) {
        const rss = Deno.memoryUsage().rss;
        takeDecodedPixels();
        const r = await thumbnail(`${dir}/${name}`, size, 40_000_000);
        const grown = (Deno.memoryUsage().rss - rss) / MB;
        assert.equal(r.origin, "card", `${name} at ${size}`);
        assert.equal(takeDecodedPixels(), 0, `${name} at ${size}: pixels decoded`);
        assert.ok(grown < 64, `${name} at ${size}: RSS grew ${Math.round(grown)} MB`);
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("render() thumbnail keeps to maxPixels: at the limit an image, one pixel over a card", async () => {
  const dir = await tempDir();
  try {
    for (const format of ["png", "jpeg"] as const) {
      const path = `${dir}/square.${format}`;
      await writeImage(path, paint(100, 100, () => [200, 60, 20]), format);
      assert.equal((await thumbnail(path, 32, 10_000)).origin, "image", format);
      assert.equal((await thumbnail(path, 32, 9_999)).origin, "card", format);
      assert.equal((await thumbnail(path, null, 9_999)).origin, "card", format);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("render() thumbnail of an image file far larger than its pixels can need is a card, unread", async () => {
  const dir = await tempDir();
  try {
    const path = `${dir}/padded.png`;
    await writeImage(path, paint(10, 10, () => [0, 0, 0]), "png");
    await Deno.truncate(path, 256 * MB); // sparse: trailing zeros written in no time
    const rss = Deno.memoryUsage().rss;
    const r = await thumbnail(path, 32, 10_000);
    const grown = (Deno.memoryUsage().rss - rss) / MB;
    assert.equal(r.origin, "card");
    assert.ok(grown < 64, `RSS grew ${Math.round(grown)} MB`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("render() thumbnail of a PNG under maxPixels but over the whole-decode ceiling is a card, undecoded", async () => {
  const dir = await tempDir();
  try {
    // A real, complete PNG (a few hundred KB) one row over the ceiling, far under maxPixels.
    const side = Math.ceil(Math.sqrt(MAX_PNG_DECODE_PIXELS));
    const path = `${dir}/big.png`;
    await Deno.writeFile(path, await pngZeros(side, side + 1));
    assert.ok(side * (side + 1) < MAX_PIXELS);
    for (const size of [64, null]) {
      const rss = Deno.memoryUsage().rss;
      const r = await thumbnail(path, size, MAX_PIXELS);
      const grown = (Deno.memoryUsage().rss - rss) / MB;
      assert.equal(r.origin, "card", `at ${size}`);
      assert.ok(grown < 64, `at ${size}: RSS grew ${Math.round(grown)} MB`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("decodeImage() counts the pixels it decoded, not the header's, for the pool's recycling", async () => {
  const jpeg = await encodeJpeg(paint(1600, 1200, (x, y) => [x & 255, y & 255, 90]), 90);
  takeDecodedPixels();
  const scaled = await decodeImage(jpeg, 64, MAX_PIXELS); // decoded at 1/8: 200x150
  assert.equal(takeDecodedPixels(), scaled.width * scaled.height);
  assert.ok(scaled.width * scaled.height < 1600 * 1200 / 16);
  await decodeImage(jpeg, null, MAX_PIXELS);
  assert.equal(takeDecodedPixels(), 1600 * 1200);
});
