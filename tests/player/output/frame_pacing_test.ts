/**
 * The output page's frame pacing (`player/output/page/frame_pacing.js`), without a browser:
 * which animation frames draw at the display's rate, the frames dropped, the lag and drift a
 * second reports, and the render scale judged only after the page's first seconds.
 */
import assert from "node:assert/strict";
import { FramePacing } from "../../../player/output/page/frame_pacing.js";
import { JUDGED_AFTER_MS, RENDER_SCALES } from "../../../player/output/page/render_scale.js";

Deno.test("FramePacing.isDue() draws a frame per display period and counts the ones skipped", () => {
  const pacing = new FramePacing();
  const period = 1000 / 30;
  assert.equal(pacing.isDue(1000, 30), true, "the first frame");
  assert.equal(pacing.isDue(1010, 30), false, "a 100 Hz animation frame between two of 30");
  assert.equal(pacing.isDue(1000 + period, 30), true);
  // The next frame comes four periods late: three display frames were dropped.
  assert.equal(pacing.isDue(1000 + 5 * period, 30), true);
  pacing.resume(); // hidden, then shown: the time between is no frame's
  assert.equal(pacing.isDue(60_000, 30), true);
  assert.equal(pacing.endSecond(30, true).dropped, 3);
});

Deno.test("FramePacing.endSecond() reports the second's frames, lag, drift and first frames, then starts again", () => {
  const pacing = new FramePacing();
  pacing.drawn(10, 2);
  pacing.drawn(-30, 5); // ahead of the clock: |lag| counts
  pacing.drift(4);
  pacing.drift(1);
  pacing.firstFrame(7, 12.5);
  const figures = pacing.endSecond(30, true);
  assert.deepEqual(figures, {
    frames: 2,
    dropped: 0,
    driftMs: 4,
    frameLagMs: 20,
    frameLagMaxMs: 30,
    clockErrorMs: 5,
    firstFrames: [{ seq: 7, clock: 12.5 }],
    renderScale: 1,
    scaleReason: null,
  });
  const empty = pacing.endSecond(30, true);
  assert.equal(empty.frames, 0);
  assert.equal(empty.frameLagMs, null, "no frame: no lag");
  assert.deepEqual(empty.firstFrames, []);
});

Deno.test("FramePacing keeps the latest 256 first frames of a second", () => {
  const pacing = new FramePacing();
  for (let seq = 0; seq < 300; seq++) pacing.firstFrame(seq, seq);
  const { firstFrames } = pacing.endSecond(30, true);
  assert.equal(firstFrames.length, 256);
  assert.equal(firstFrames[0]!.seq, 44);
});

/** `seconds` seconds of frames 250 ms apart from page time `from`; the scale after each. */
function slowSeconds(pacing: FramePacing, from: number, seconds: number): number[] {
  const scales: number[] = [];
  for (let s = 0, t = from; s < seconds; s++) {
    for (let f = 0; f < 4; f++, t += 250) pacing.isDue(t, 30);
    scales.push(pacing.endSecond(30, true).renderScale);
  }
  return scales;
}

Deno.test("FramePacing judges the render scale only after the page's first seconds, and not while hidden", () => {
  const pacing = new FramePacing();
  // Slow from the first frame: the first JUDGED_AFTER_MS are not judged.
  const early = slowSeconds(pacing, 0, JUDGED_AFTER_MS / 1000);
  assert.deepEqual(early, early.map(() => 1));
  const later = slowSeconds(pacing, JUDGED_AFTER_MS + 250, 2);
  assert.deepEqual(later, [1, RENDER_SCALES[1]], "two slow seconds judged: a step down");
  // A hidden page's second is not judged: the scale and its reason stay.
  const hidden = pacing.endSecond(30, false);
  assert.equal(hidden.renderScale, RENDER_SCALES[1]);
  assert.notEqual(hidden.scaleReason, null);
  // A new frame budget from the player: judged afresh, from scale 1.
  pacing.setBudget(1000);
  assert.equal(pacing.scale(30), 1);
});
