import assert from "node:assert/strict";
import imagescriptJpeg from "imagescript/wasm/node/jpeg.js";
import imagescriptPng from "imagescript/wasm/node/png.js";
import { encodeJpeg, encodePng } from "../../../../server/media/render/codecs.ts";
import { decodeJpeg, decodePng } from "../../../../server/media/render/imagescript.ts";
import { ownMemoryBytes, pixelBuffer } from "../../../../server/media/render/raster.ts";
import { paint } from "./_fixtures.ts";

interface Glue {
  init(): Promise<{
    decode(bytes: Uint8Array, w?: number, h?: number): {
      width: number;
      height: number;
      buffer?: Uint8Array;
      framebuffer?: Uint8Array;
    };
  }>;
}

const picture = (w: number, h: number) => paint(w, h, (x, y) => [x % 256, y % 256, (x ^ y) % 256]);

Deno.test("imagescript's decoders driven here give the samples its own glue gives, scaled or not", async () => {
  const jpegGlue = await (imagescriptJpeg as unknown as Glue).init();
  const pngGlue = await (imagescriptPng as unknown as Glue).init();
  for (const [w, h] of [[640, 360], [33, 17], [1, 1]] as const) {
    const jpeg = await encodeJpeg(picture(w, h), 90);
    for (const side of [0, 64, 200]) {
      const theirs = side === 0 ? jpegGlue.decode(jpeg) : jpegGlue.decode(jpeg, side, side);
      const ours = await decodeJpeg(jpeg, side, (s) => ({ ...s, samples: s.samples.slice() }));
      assert.deepEqual(
        [ours.width, ours.height],
        [theirs.width, theirs.height],
        `${w}x${h} @${side}`,
      );
      assert.deepEqual(ours.samples, theirs.buffer, `${w}x${h} @${side}`);
    }
    const png = encodePng(picture(w, h));
    const theirs = pngGlue.decode(png);
    const ours = await decodePng(png, (s) => ({ ...s, samples: s.samples.slice() }));
    assert.deepEqual([ours.width, ours.height, ours.samples], [w, h, theirs.framebuffer]);
  }
  await assert.rejects(decodeJpeg(new Uint8Array([0xff, 0xd8, 0xff, 0, 1]), 0, () => 0));
  await assert.rejects(decodePng(new Uint8Array(16), () => 0));
});

Deno.test("pixelBuffer() gives large pictures a memory of their own, counted for the worker's recycling", () => {
  const before = ownMemoryBytes();
  assert.equal(pixelBuffer(64 * 64 * 4).length, 64 * 64 * 4);
  assert.equal(ownMemoryBytes(), before, "a small one is an ordinary buffer");
  const large = pixelBuffer(3840 * 2160 * 4);
  assert.equal(large.length, 3840 * 2160 * 4);
  assert.ok(ownMemoryBytes() - before >= large.length);
});

Deno.test("encodeJpeg() encodes a large picture (jpeg-js) and a small one (mozjpeg) that decode back to it", async () => {
  for (const [w, h] of [[2560, 1600], [300, 200]] as const) {
    const r = picture(w, h);
    const jpeg = await encodeJpeg(r, 90);
    const back = await decodeJpeg(jpeg, 0, (s) => ({ ...s, samples: s.samples.slice() }));
    assert.deepEqual([back.width, back.height], [w, h]);
    // Colours within JPEG's error: the mean difference of the red channel of the first rows.
    let diff = 0;
    for (let i = 0; i < w * 8; i++) diff += Math.abs(back.samples[i * 3]! - r.data[i * 4]!);
    assert.ok(diff / (w * 8) < 8, `${w}x${h}: mean error ${diff / (w * 8)}`);
  }
});
