import assert from "node:assert/strict";
import { MediaImage, MediaNotModified, type OutputFrameInput } from "../../../server/core/mod.ts";
import { OutputFrames, type OutputPicture } from "../../../server/media/output_frames.ts";
import { VariantLimits } from "../../../server/media/variant_limits.ts";

/** A capture the test ends by hand, counting the captures asked of the player. */
function fakeCapture() {
  const pending: Array<{ resolve(p: OutputPicture): void; reject(e: Error): void }> = [];
  let captures = 0;
  return {
    get captures() {
      return captures;
    },
    pending,
    capture: () => {
      captures++;
      return new Promise<OutputPicture>((resolve, reject) => pending.push({ resolve, reject }));
    },
    /** Ends the oldest capture with a picture of `byte`. */
    finish(byte: number) {
      pending.shift()!.resolve({ bytes: new Uint8Array([byte]), contentType: "image/jpeg" });
    },
  };
}

const JPEG: OutputFrameInput = { size: 320, format: "jpeg", quality: 80 };
const tick = () => new Promise((r) => setTimeout(r, 0));

Deno.test("OutputFrames.frame() shares one capture among concurrent requests and reuses it for reuseMs", async () => {
  let now = 0;
  const player = fakeCapture();
  const frames = new OutputFrames({
    capture: player.capture,
    variants: new VariantLimits(),
    now: () => now,
  });
  const asked = [1, 2, 3, 4].map(() => frames.frame(JPEG));
  assert.equal(player.captures, 1, "four clients at once: one capture");
  player.finish(7);
  const answers = await Promise.all(asked);
  assert.ok(answers.every((a) => a instanceof MediaImage && a.bytes[0] === 7));
  now += 199;
  assert.equal(((await frames.frame(JPEG)) as MediaImage).bytes[0], 7, "younger than 200 ms");
  assert.equal(player.captures, 1);
  now += 1;
  const next = frames.frame(JPEG);
  assert.equal(player.captures, 2, "200 ms old: taken again");
  player.finish(8);
  assert.equal(((await next) as MediaImage).bytes[0], 8);
  // Another variant is another capture.
  const png = frames.frame({ format: "png", quality: 85 });
  assert.equal(player.captures, 3);
  player.finish(9);
  await png;
});

Deno.test("OutputFrames.frame() answers 304 for the picture's ETag, and does not keep a failed capture", async () => {
  const player = fakeCapture();
  const frames = new OutputFrames({ capture: player.capture, variants: new VariantLimits() });
  const first = frames.frame(JPEG);
  player.finish(1);
  const image = (await first) as MediaImage;
  const again = await frames.frame({ ...JPEG, ifNoneMatch: image.etag });
  assert.ok(again instanceof MediaNotModified);

  const failing = new OutputFrames({ capture: player.capture, variants: new VariantLimits() });
  const refused = failing.frame(JPEG);
  player.pending.shift()!.reject(new Error("No output runs"));
  await assert.rejects(refused, /No output runs/);
  await tick();
  const before = player.captures;
  const retried = failing.frame(JPEG);
  assert.equal(player.captures, before + 1, "a failure is not reused");
  player.finish(2);
  await retried;
});

Deno.test("OutputFrames.frame() holds a remote client to the variant limits; local clients are free", async () => {
  const player = fakeCapture();
  const frames = new OutputFrames({
    capture: player.capture,
    variants: new VariantLimits({ inFlight: 2, perMinute: 20 }),
  });
  const remote = { client: "device:d1", isLocal: false };
  const waiting = [16, 32].map((size) => frames.frame({ ...JPEG, size }, remote));
  await assert.rejects(frames.frame({ ...JPEG, size: 48 }, remote), { code: "RATE_LIMITED" });
  const local = frames.frame({ ...JPEG, size: 48 }, { client: "127.0.0.1", isLocal: true });
  player.finish(1);
  player.finish(2);
  player.finish(3);
  await Promise.all([...waiting, local]);
});
