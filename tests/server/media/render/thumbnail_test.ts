import assert from "node:assert/strict";
import { render, type RenderJob, type SourceFile } from "../../../../server/media/render/mod.ts";
import {
  decoded,
  ffmpeg,
  isJpegBytes,
  isPngBytes,
  MAX_PIXELS,
  near,
  paint,
  pixel,
  source,
  tempDir,
  writeImage,
} from "./_fixtures.ts";
import { needs } from "../../../../tools/testing/peers.ts";

const RED = [220, 30, 30] as const, BLUE = [30, 40, 220] as const, GREEN = [20, 200, 40] as const;

function thumbnail(src: SourceFile, options: Partial<Extract<RenderJob, { type: "thumbnail" }>>) {
  return render({
    type: "thumbnail",
    source: src,
    size: 64,
    overlay: "none",
    format: "jpeg",
    quality: 85,
    ffmpeg: null,
    maxPixels: MAX_PIXELS,
    ...options,
  });
}

/** 200x100: green | red | blue | green bands, 50 pixels each. */
async function bands(dir: string, format: "png" | "jpeg"): Promise<string> {
  const path = `${dir}/bands.${format === "png" ? "png" : "jpg"}`;
  await writeImage(
    path,
    paint(200, 100, (x) => (x < 50 || x >= 150 ? GREEN : x < 100 ? RED : BLUE)),
    format,
  );
  return path;
}

Deno.test("render() thumbnail of a PNG is a square JPEG of the asked size", async () => {
  const dir = await tempDir();
  try {
    const r = await thumbnail(source(await bands(dir, "png"), "image"), { size: 48 });
    assert.equal(r.contentType, "image/jpeg");
    assert.ok(isJpegBytes(r.bytes));
    assert.deepEqual([r.width, r.height, r.origin], [48, 48, "image"]);
    const image = await decoded(r.bytes);
    assert.deepEqual([image.width, image.height], [48, 48]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("render() thumbnail crops a wide picture to its centre square", async () => {
  const dir = await tempDir();
  try {
    for (const format of ["png", "jpeg"] as const) {
      const r = await thumbnail(source(await bands(dir, format), "image"), {
        size: 32,
        format: "png",
      });
      assert.ok(isPngBytes(r.bytes));
      const image = await decoded(r.bytes);
      // The green outer bands are cut away: red fills the left half, blue the right.
      for (const y of [0, 16, 31]) {
        assert.ok(near(pixel(image, 1, y), [...RED, 255]), `${format} left ${pixel(image, 1, y)}`);
        assert.ok(near(pixel(image, 30, y), [...BLUE, 255]), `${format} right`);
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("render() thumbnail with size null keeps the original size, uncropped", async () => {
  const dir = await tempDir();
  try {
    const r = await thumbnail(source(await bands(dir, "jpeg"), "image"), { size: null });
    assert.deepEqual([r.width, r.height], [200, 100]);
    const image = await decoded(r.bytes);
    assert.deepEqual([image.width, image.height], [200, 100]);
    assert.ok(near(pixel(image, 5, 50), [...GREEN, 255]));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("render() thumbnail shrinks by averaging areas (a fine checkerboard turns grey)", async () => {
  const dir = await tempDir();
  try {
    const path = `${dir}/checker.png`;
    const white = [255, 255, 255] as const, black = [0, 0, 0] as const;
    await writeImage(path, paint(256, 256, (x, y) => ((x + y) % 2 ? white : black)), "png");
    const image = await decoded(
      (await thumbnail(source(path, "image"), { size: 100, format: "png" })).bytes,
    );
    for (let i = 0; i < image.data.length; i += 4) {
      // Sampling would give black or white; area averaging gives grey (a 2.56-pixel box holds
      // 45..55 % white, so 115..140).
      assert.ok(Math.abs(image.data[i]! - 128) <= 16, `pixel ${i / 4} is ${image.data[i]}`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("render() thumbnail overlay changes the centre and leaves the corners", async () => {
  const dir = await tempDir();
  try {
    const path = await bands(dir, "png");
    for (const size of [16, 512]) {
      const plain = await decoded(
        (await thumbnail(source(path, "image"), { size, format: "png" })).bytes,
      );
      const shown: Record<string, number[]> = {};
      for (const overlay of ["play", "pause"] as const) {
        const r = await thumbnail(source(path, "image"), { size, overlay, format: "png" });
        const image = await decoded(r.bytes);
        const c = Math.floor(size / 2);
        for (const [x, y] of [[0, 0], [size - 1, 0], [0, size - 1], [size - 1, size - 1]]) {
          assert.deepEqual(pixel(image, x!, y!), pixel(plain, x!, y!), `${overlay} corner`);
        }
        // The disc darkens the picture around the symbol; the symbol is white.
        const ring = pixel(image, c, Math.round(size * 0.2));
        assert.ok(ring[0]! < pixel(plain, c, Math.round(size * 0.2))[0]!, `${overlay} disc`);
        shown[overlay] = pixel(image, c, c);
      }
      assert.ok(near(shown.play!, [255, 255, 255, 255], 40), `play centre ${shown.play}`);
      // The pause symbol has a gap between its bars at the centre.
      assert.ok(shown.pause![0]! < 200, `pause centre ${shown.pause}`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("render() thumbnail at a lower quality gives fewer bytes", async () => {
  const dir = await tempDir();
  try {
    const path = `${dir}/noise.png`;
    await writeImage(
      path,
      paint(128, 128, (x, y) => [(x * 37 + y * 11) % 256, (x * y) % 256, (x ^ y) * 2 % 256]),
      "png",
    );
    const low = await thumbnail(source(path, "image"), { size: 128, quality: 20 });
    const high = await thumbnail(source(path, "image"), { size: 128, quality: 95 });
    assert.ok(low.bytes.length < high.bytes.length, `${low.bytes.length} < ${high.bytes.length}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("render() thumbnail is the same bytes for the same job", async () => {
  const dir = await tempDir();
  try {
    const src = source(await bands(dir, "jpeg"), "image");
    const a = await thumbnail(src, { overlay: "play" }),
      b = await thumbnail(src, { overlay: "play" });
    assert.deepEqual(a.bytes, b.bytes);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("render() thumbnail turns a JPEG upright by its EXIF orientation", async () => {
  const dir = await tempDir();
  try {
    const plain = `${dir}/plain.jpg`;
    await writeImage(plain, paint(80, 40, (x) => (x < 40 ? RED : BLUE)), "jpeg");
    const bytes = await Deno.readFile(plain);
    // APP1 "Exif", little-endian TIFF, one IFD entry: orientation (0x0112) = 6, turn 90 degrees clockwise.
    const tiff = [
      0x49,
      0x49,
      42,
      0,
      8,
      0,
      0,
      0,
      1,
      0,
      0x12,
      0x01,
      3,
      0,
      1,
      0,
      0,
      0,
      6,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
    ];
    const payload = [0x45, 0x78, 0x69, 0x66, 0, 0, ...tiff];
    const app1 = [0xff, 0xe1, 0, payload.length + 2, ...payload];
    const rotated = `${dir}/rotated.jpg`;
    await Deno.writeFile(rotated, new Uint8Array([0xff, 0xd8, ...app1, ...bytes.subarray(2)]));
    const r = await thumbnail(source(rotated, "image"), { size: null, format: "png" });
    assert.deepEqual([r.width, r.height], [40, 80]);
    const image = await decoded(r.bytes);
    assert.ok(near(pixel(image, 20, 5), [...RED, 255]), "the left half is now on top");
    assert.ok(near(pixel(image, 20, 75), [...BLUE, 255]));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("render() thumbnail of a broken or missing image is a card, never an error", async () => {
  const dir = await tempDir();
  try {
    const broken = `${dir}/broken.jpg`;
    await Deno.writeFile(broken, new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16, 1, 2, 3, 4, 5]));
    for (const path of [broken, `${dir}/missing.png`]) {
      const r = await thumbnail(source(path, "image"), { size: 96 });
      assert.equal(r.origin, "card");
      assert.ok(isJpegBytes(r.bytes));
      assert.deepEqual([(await decoded(r.bytes)).width, r.width, r.height], [96, 96, 96]);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("render() thumbnail of audio is a card with the name and duration in its lower half", async () => {
  const src = source("/nonexistent/song.wav", "audio", { name: "Song.wav", duration: 42 });
  const withText = await decoded((await thumbnail(src, { size: 128, format: "png" })).bytes);
  const noName = await decoded(
    (await thumbnail({ ...src, name: "", duration: null }, { size: 128, format: "png" })).bytes,
  );
  const whiteIn = (r: typeof withText, y0: number, y1: number) => {
    let n = 0;
    for (let y = y0; y < y1; y++) {
      for (let x = 0; x < r.width; x++) {
        if (pixel(r, x, y)[0]! > 240 && pixel(r, x, y)[1]! > 240) n++;
      }
    }
    return n;
  };
  assert.ok(whiteIn(withText, 76, 128) > 40, "text below the icon");
  assert.equal(whiteIn(noName, 76, 128), 0);
  assert.ok(whiteIn(noName, 0, 76) > 100, "the icon");
  // Original size asked of a card: a 512 square.
  const big = await thumbnail(src, { size: null });
  assert.deepEqual([big.width, big.height, big.origin], [512, 512, "card"]);
});

Deno.test("render() thumbnail of audio is a card whose purple is lighter at the top than the bottom", async () => {
  // Audio's purple (126, 34, 206) times 1.15 in the top row and times 0.8 in the bottom one.
  const src = source("/nonexistent/song.wav", "audio", { name: "", duration: null });
  for (const size of [16, 97, 512]) {
    const card = await decoded((await thumbnail(src, { size, format: "png" })).bytes);
    assert.deepEqual([...pixel(card, 0, 0)], [145, 39, 237, 255], `top-left of ${size}`);
    assert.deepEqual(
      [...pixel(card, size - 1, size - 1)],
      [101, 27, 165, 255],
      `bottom of ${size}`,
    );
  }
});

Deno.test(
  "render() thumbnail of a video is a frame through ffmpeg, a card without it",
  needs("ffmpeg"),
  async () => {
    const dir = await tempDir();
    try {
      const path = `${dir}/clip.mp4`;
      // Two seconds: red for the first half second, then blue; the frame is taken at 1 s.
      await ffmpeg(
        ...["-f", "lavfi", "-i", "color=c=red:s=160x90:d=0.5:r=10"],
        ...["-f", "lavfi", "-i", "color=c=blue:s=160x90:d=1.5:r=10"],
        ...["-filter_complex", "[0][1]concat=n=2:v=1", "-pix_fmt", "yuv420p", path],
      );
      const src = source(path, "video", { duration: 2 });
      const frame = await thumbnail(src, { size: 64, ffmpeg: "ffmpeg", format: "png" });
      assert.equal(frame.origin, "video-frame");
      const image = await decoded(frame.bytes);
      assert.deepEqual([image.width, image.height], [64, 64]);
      assert.ok(near(pixel(image, 32, 32), [0, 0, 255, 255], 40), `${pixel(image, 32, 32)}`);
      const original = await thumbnail(src, { size: null, ffmpeg: "ffmpeg" });
      assert.deepEqual([original.width, original.height, original.origin], [
        160,
        90,
        "video-frame",
      ]);
      for (const ffmpegPath of ["/nonexistent/ffmpeg", null]) {
        const card = await thumbnail(src, { size: 64, ffmpeg: ffmpegPath });
        assert.equal(card.origin, "card");
      }
      // A file ffmpeg cannot read gets a card too.
      await Deno.writeFile(`${dir}/bad.mp4`, new Uint8Array(100));
      const bad = await thumbnail(source(`${dir}/bad.mp4`, "video"), { ffmpeg: "ffmpeg" });
      assert.equal(bad.origin, "card");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);
