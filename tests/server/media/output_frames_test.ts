import assert from "node:assert/strict";
import { MediaImage, MediaNotModified, OutputFrameInput } from "../../../server/core/mod.ts";
import {
  MAX_VARIANTS,
  OutputFrames,
  type OutputPicture,
  REMOTE_OUTPUT_SIDE,
} from "../../../server/media/output_frames.ts";
import { VariantLimits } from "../../../server/media/variant_limits.ts";

/** A capture the test ends by hand, counting the captures asked of the player. */
function fakeCapture() {
  const pending: Array<{ resolve(p: OutputPicture): void; reject(e: Error): void }> = [];
  let captures = 0;
  const asks: OutputFrameInput[] = [];
  const derived: OutputFrameInput[] = [];
  return {
    get captures() {
      return captures;
    },
    pending,
    asks,
    derived,
    capture: (input: OutputFrameInput) => {
      captures++;
      asks.push(input);
      return new Promise<OutputPicture>((resolve, reject) => pending.push({ resolve, reject }));
    },
    /** A variant of a capture: its first byte and the size asked. */
    derive: (from: OutputPicture, input: OutputFrameInput) => {
      derived.push(input);
      return Promise.resolve<OutputPicture>({
        bytes: new Uint8Array([from.bytes[0]!, input.size ?? 0]),
        contentType: input.format === "png" ? "image/png" : "image/jpeg",
      });
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
    derive: player.derive,
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
  // A smaller variant is made from the same capture.
  const png = (await frames.frame({ size: 100, format: "png", quality: 85 })) as MediaImage;
  assert.equal(player.captures, 2);
  assert.deepEqual([...png.bytes], [8, 100]);
});

Deno.test("OutputFrames.frame() answers 304 for the picture's ETag, and does not keep a failed capture", async () => {
  const player = fakeCapture();
  const frames = new OutputFrames({
    capture: player.capture,
    derive: player.derive,
    variants: new VariantLimits(),
  });
  const first = frames.frame(JPEG);
  player.finish(1);
  const image = (await first) as MediaImage;
  const again = await frames.frame({ ...JPEG, ifNoneMatch: image.etag });
  assert.ok(again instanceof MediaNotModified);

  const failing = new OutputFrames({
    capture: player.capture,
    derive: player.derive,
    variants: new VariantLimits(),
  });
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
    derive: player.derive,
    variants: new VariantLimits({ inFlight: 2, perMinute: 20 }),
  });
  const remote = { client: "device:d1", isLocal: false };
  const waiting = [16, 32].map((size) => frames.frame({ ...JPEG, size }, remote));
  await assert.rejects(frames.frame({ ...JPEG, size: 48 }, remote), {
    code: "RATE_LIMITED",
    message:
      "Too many variants of the output's picture being made for this client: at most 2 at once",
  });
  const local = frames.frame({ ...JPEG, size: 48 }, { client: "127.0.0.1", isLocal: true });
  player.finish(1);
  await tick();
  player.finish(2);
  await Promise.all([...waiting, local]);
  assert.equal(player.captures, 2, "16 taken first; 32 and 48 from one capture after it");
  assert.equal(player.asks[1]?.size, 48);
});

Deno.test("OutputFrames.frame() takes at most one capture per 200 ms for any mix of sizes, formats and qualities", async () => {
  let now = 0;
  const player = fakeCapture();
  const frames = new OutputFrames({
    capture: player.capture,
    derive: player.derive,
    variants: new VariantLimits({ inFlight: 2, perMinute: 1000 }),
    now: () => now,
  });
  // A remote's phone (box x DPR at q70), a tablet, Companion (PNG), MCP (512 q85), and one
  // device cycling through sizes to keep the output capturing.
  const clients: Array<{ at: number; input: () => OutputFrameInput; client: string }> = [
    { at: 0, input: () => ({ size: 390, format: "jpeg", quality: 70 }), client: "device:phone" },
    { at: 30, input: () => ({ size: 480, format: "jpeg", quality: 70 }), client: "device:tab" },
    { at: 60, input: () => ({ size: 72, format: "png", quality: 85 }), client: "127.0.0.1" },
    { at: 90, input: () => ({ size: 512, format: "jpeg", quality: 85 }), client: "127.0.0.1" },
  ];
  let cycle = 16;
  clients.push({
    at: 120,
    input: () => ({ size: cycle = cycle >= 512 ? 16 : cycle + 1, format: "jpeg", quality: 50 }),
    client: "device:cycler",
  });
  const seconds = 10;
  for (let t = 0; t < seconds * 1000; t += 10) {
    now = t;
    for (const c of clients) {
      if ((t - c.at) % 50 !== 0 || t < c.at) continue; // each client 20 times a second
      const answer = frames.frame(c.input(), {
        client: c.client,
        isLocal: !c.client.startsWith("device"),
      });
      while (player.pending.length) player.finish(t % 256);
      await answer;
    }
  }
  // Plus one each time a larger size than the last capture's is asked (480, then 512).
  assert.ok(player.captures <= seconds * 5 + 2, `${player.captures} captures in ${seconds} s`);
  // The captures are of the largest asked lately, in JPEG at the best quality asked.
  assert.deepEqual(player.asks.at(-1), { size: 512, format: "jpeg", quality: 85 });
});

Deno.test("OutputFrames drops a stale capture and its variants at the next request", async () => {
  let now = 0;
  const player = fakeCapture();
  const frames = new OutputFrames({
    capture: player.capture,
    derive: player.derive,
    variants: new VariantLimits(),
    now: () => now,
  });
  const first = frames.frame({ format: "png", quality: 85 });
  player.finish(1);
  await first;
  for (let size = 16; size < 80; size++) {
    const made = (await frames.frame({ ...JPEG, size })) as MediaImage;
    assert.deepEqual([...made.bytes], [1, size], "past the cap, still made");
  }
  assert.deepEqual(frames.held, { captures: 1, variants: MAX_VARIANTS }, "at most 64 kept");
  assert.equal(player.captures, 1);
  now += 200;
  const next = frames.frame(JPEG);
  player.finish(2);
  await next;
  assert.deepEqual(frames.held, { captures: 1, variants: 1 }, "the stale ones are gone");
});

Deno.test("OutputFrames.frame() bounds a remote client's full-size picture; a local one gets the output's size", async () => {
  const player = fakeCapture();
  const frames = new OutputFrames({
    capture: player.capture,
    derive: player.derive,
    variants: new VariantLimits(),
  });
  const remote = frames.frame({ format: "png", quality: 85 }, {
    client: "device:d",
    isLocal: false,
  });
  player.finish(1);
  await remote;
  assert.equal(player.asks[0]?.size, REMOTE_OUTPUT_SIDE);
  const local = frames.frame({ format: "png", quality: 85 });
  assert.equal(player.captures, 2, "the 1280 capture is young, but smaller: a new one");
  assert.deepEqual(player.asks[1], { format: "png", quality: 85 }, "at the output's size");
  player.finish(2);
  assert.deepEqual([...((await local) as MediaImage).bytes], [2], "the capture itself");
});

Deno.test("OutputFrames.frame() never enlarges: 512 asked while 390 captures run waits for a 512 capture", async () => {
  let now = 0;
  const player = fakeCapture();
  const frames = new OutputFrames({
    capture: player.capture,
    derive: player.derive,
    variants: new VariantLimits(),
    now: () => now,
  });
  const phone = { size: 390, format: "jpeg", quality: 70 } as const;
  const mcp = { size: 512, format: "jpeg", quality: 85 } as const;
  const first = frames.frame(phone, { client: "device:phone", isLocal: false });
  now += 10;
  const large = frames.frame(mcp);
  const large2 = frames.frame(mcp);
  assert.equal(player.captures, 1, "one capture at a time: the 512 one waits");
  player.finish(1);
  assert.deepEqual([...((await first) as MediaImage).bytes], [1], "the phone's capture");
  await tick();
  assert.equal(player.captures, 2, "taken as soon as the 390 one ends");
  assert.deepEqual(player.asks[1], mcp, "at the largest asked");
  player.finish(2);
  assert.deepEqual([...((await large) as MediaImage).bytes], [2], "the capture itself");
  assert.deepEqual([...((await large2) as MediaImage).bytes], [2]);
  assert.ok(player.derived.every((d) => d.size! <= 390), "nothing enlarged");
  // Later small requests come from the large capture, and the next capture is the largest.
  now += 50;
  const small = await frames.frame(phone, { client: "device:phone", isLocal: false });
  assert.deepEqual([...(small as MediaImage).bytes], [...new Uint8Array([2, 390])]);
  now += 200;
  const again = frames.frame(phone, { client: "device:phone", isLocal: false });
  assert.deepEqual(player.asks[2], mcp, "512 was asked in the last 2 s");
  player.finish(3);
  assert.deepEqual([...((await again) as MediaImage).bytes], [...new Uint8Array([3, 390])]);
  assert.equal(player.captures, 3);
});

Deno.test("OutputFrameInput's size says what an omitted size gives a remote client (the 1280 bound)", () => {
  const said = OutputFrameInput.shape.size.description ?? "";
  assert.match(said, new RegExp(`\\b${REMOTE_OUTPUT_SIDE}\\b`));
  assert.match(said, /local/);
});
