import assert from "node:assert/strict";
import { type DrawnFrame, pairVsyncs } from "../../bench/_vsync_pairs.ts";

const FRAME = 100; // ms: round figures

/** Frames drawn at `ats`, each drawing show time `at + lead`. */
const drawn = (ats: number[], lead = 0): DrawnFrame[] => ats.map((at) => ({ at, show: at + lead }));

Deno.test("pairVsyncs: each frame of A pairs with the frame B has on screen then", () => {
  // B draws 40 ms before A each time: A's frame at 100 sees B's frame of 60, not of 160.
  const a = drawn([100, 200, 300]);
  const b = drawn([60, 160, 260, 360]);
  const pairs = pairVsyncs(a, b, FRAME);
  assert.deepEqual(pairs.onScreen, [0.4, 0.4, 0.4]);
  // Both draw the same clock: carried to A's instant, B's frame agrees with A's.
  assert.deepEqual(pairs.atInstant, [0, 0, 0]);
  // 100 vs 60, 200 vs 160, 300 vs 260: whole indexes 1/0, 2/1, 3/2.
  assert.equal(pairs.differentFrames, 3);
});

Deno.test("pairVsyncs: a frame of B drawn at the same instant is the one on screen", () => {
  const pairs = pairVsyncs(drawn([100, 200]), drawn([100, 200, 300], -25), FRAME);
  assert.deepEqual(pairs.onScreen, [0.25, 0.25]);
  assert.deepEqual(pairs.atInstant, [0.25, 0.25]);
});

Deno.test("pairVsyncs: A's frames outside B's recorded span do not pair", () => {
  // 50: B had drawn nothing yet; 400: B's frame after 300 was not recorded.
  const pairs = pairVsyncs(drawn([50, 150, 250, 400]), drawn([100, 200, 300], 10), FRAME);
  assert.equal(pairs.onScreen.length, 2);
  assert.deepEqual(pairs.onScreen.map((x) => Math.round(x * 100) / 100), [0.4, 0.4]);
  assert.deepEqual(pairs.atInstant.map((x) => Math.round(x * 100) / 100), [-0.1, -0.1]);
  assert.deepEqual(pairVsyncs(drawn([50]), [], FRAME).onScreen, []);
});

Deno.test("pairVsyncs: B's frame held on screen over several of A's vsyncs ages with them", () => {
  // B drew once at 0 (then stalled until 400): A's frames at 100-300 all see it, further behind.
  const pairs = pairVsyncs(drawn([100, 200, 300]), drawn([0, 400]), FRAME);
  assert.deepEqual(pairs.onScreen, [1, 2, 3]);
  assert.deepEqual(pairs.atInstant, [0, 0, 0]);
  assert.equal(pairs.differentFrames, 3);
});

Deno.test("pairVsyncs: the sign says which page is ahead", () => {
  const pairs = pairVsyncs(drawn([100, 200], -50), drawn([100, 200]), FRAME);
  assert.deepEqual(pairs.onScreen, [-0.5, -0.5]);
  assert.equal(pairs.differentFrames, 2); // 50 vs 100: index 0 vs 1
});

Deno.test("pairVsyncs: a looping content's difference is taken the short way round", () => {
  // A loop of 1,000 ms: A at 990 and B at 20 (wrapped) are 30 ms apart, A behind.
  const a = [{ at: 100, show: 990 }, { at: 200, show: 90 }];
  const b = [{ at: 100, show: 20 }, { at: 200, show: 120 }];
  const pairs = pairVsyncs(a, b, FRAME, 1000);
  assert.deepEqual(pairs.onScreen.map((x) => Math.round(x * 100) / 100), [-0.3, -0.3]);
  assert.deepEqual(pairs.atInstant.map((x) => Math.round(x * 100) / 100), [-0.3, -0.3]);
  // Without the loop, 970 ms apart.
  assert.equal(Math.round(pairVsyncs(a, b, FRAME).onScreen[0]! * 10), 97);
});
