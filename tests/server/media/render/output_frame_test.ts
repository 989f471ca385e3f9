import assert from "node:assert/strict";
import { encodePng } from "../../../../lib/png.ts";
import { render } from "../../../../server/media/render/mod.ts";
import { fitSize } from "../../../../server/media/render/output_frame.ts";
import { decodePng, formatOf, jpegSize, pixel } from "../../../../tools/testing/images.ts";

/** A 160x90 PNG as a player before 1.8 saves the output's picture: left half red, right blue. */
async function outputPng(): Promise<string> {
  const rgba = new Uint8Array(160 * 90 * 4);
  for (let i = 0; i < 160 * 90; i++) {
    rgba.set(i % 160 < 80 ? [255, 0, 0, 255] : [0, 0, 255, 255], i * 4);
  }
  const path = await Deno.makeTempFile({ suffix: ".png" });
  await Deno.writeFile(path, encodePng(160, 90, rgba));
  return path;
}

Deno.test("fitSize() gives the longer side the size and keeps the shape", () => {
  assert.deepEqual(fitSize(1920, 1080, 320), [320, 180]);
  assert.deepEqual(fitSize(1080, 1920, 320), [180, 320]);
  assert.deepEqual(fitSize(160, 90, 512), [512, 288]);
  assert.deepEqual(fitSize(4000, 1, 16), [16, 1]);
});

Deno.test("render() of an output-frame job scales a player's PNG without cutting it, as JPEG or PNG", async () => {
  const path = await outputPng();
  try {
    const source = {
      path,
      kind: "image" as const,
      name: "output",
      mimeType: "image/png",
      duration: null,
      pixels: 160 * 90,
    };
    const job = { type: "output-frame" as const, source, quality: 85, maxPixels: 1e8 };
    const jpeg = await render({ ...job, size: 64, format: "jpeg" });
    assert.equal(jpeg.contentType, "image/jpeg");
    assert.equal(formatOf(jpeg.bytes), "jpeg");
    assert.deepEqual(jpegSize(jpeg.bytes), { width: 64, height: 36 });
    const png = await render({ ...job, size: 32, format: "png" });
    const pixels = decodePng(png.bytes);
    assert.deepEqual([pixels.width, pixels.height], [32, 18]);
    // Both halves are kept: nothing was cut to a square.
    assert.deepEqual(pixel(pixels, 2, 9).slice(0, 3), [255, 0, 0]);
    assert.deepEqual(pixel(pixels, 29, 9).slice(0, 3), [0, 0, 255]);
    const whole = await render({ ...job, size: null, format: "png" });
    assert.equal(whole.origin, "output");
    assert.deepEqual([whole.width, whole.height], [160, 90]);
  } finally {
    await Deno.remove(path);
  }
});
