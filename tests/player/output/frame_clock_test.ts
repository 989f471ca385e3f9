/**
 * The output page's frame time (`page/frame_time.js`): the drawn time follows the player's clock
 * (the group's show clock) by the media's drift rule with a half-frame deadband, and each frame
 * says how far it lags that clock; the page's estimate of that clock (`page/clock.js`) says how
 * far it may be off (`estimateOf`). Page times and the clock's readings are given: a virtual clock.
 */
import assert from "node:assert/strict";
import { estimateOf, FrameTime, keptSamples } from "../../../player/output/page/frame_time.js";

const FRAME = 1000 / 60;

/** Frames from page time `from`, a frame apart, on a player clock `offset` ahead of the page's. */
function frames(time: FrameTime, from: number, count: number, offset: number): number[] {
  return Array.from({ length: count }, (_, i) => {
    const t = from + i * FRAME;
    time.next(t, t + offset, FRAME);
    return time.lagMs;
  });
}

Deno.test("FrameTime.next() holds its pace within half a frame of the player's clock", () => {
  const time = new FrameTime();
  assert.deepEqual([time.next(1000, 6000, FRAME), time.lagMs], [6000, 0]);
  // The clock moves by less than half a frame (a new estimate of it): no correction.
  for (const lag of frames(time, 1000 + FRAME, 30, 5006)) assert.equal(lag, 6);
  assert.equal(time.next(2000, 7006, FRAME), 7000);
});

Deno.test("FrameTime.next() slews beyond half a frame until it agrees, 20% of a frame at most", () => {
  const time = new FrameTime();
  time.next(1000, 6000, FRAME);
  const lags = frames(time, 1000 + FRAME, 40, 5040); // the show clock moved 40 ms
  assert.ok(lags[0]! > 30, `the first frame after lags: ${lags[0]}`);
  for (let i = 1; i < lags.length; i++) {
    const step = lags[i - 1]! - lags[i]!;
    assert.ok(step <= 0.2 * FRAME + 1e-9, `slewed, not stepped: ${lags}`);
    assert.ok(lags[i]! >= 0, "never past the clock");
  }
  assert.ok(Math.abs(lags.at(-1)!) < 0.5, `then agrees, not only within the deadband: ${lags}`);
  const back = frames(time, 1000 + 41 * FRAME, 40, 5000); // and 40 ms back: ahead of it
  assert.ok(back[0]! < -30 && Math.abs(back.at(-1)!) < 0.5, `${back}`);
});

Deno.test("FrameTime.next() steps when more than half a second off; reset() starts afresh", () => {
  const time = new FrameTime();
  time.next(1000, 6000, FRAME);
  assert.deepEqual([time.next(1000 + FRAME, 8000 + FRAME, FRAME), time.lagMs], [8000 + FRAME, 0]);
  time.reset();
  assert.deepEqual([time.next(3000, 100, FRAME), time.lagMs], [100, 0]);
});

Deno.test("keptSamples() forgets the samples when the clock moved beyond their round trips", () => {
  const good = { rtt: 0.2, offset: 100 };
  // A worse sample that agrees with the best within their round trips: all kept.
  const agreeing = keptSamples([good], { rtt: 20, offset: 108 });
  assert.deepEqual(agreeing, [good, { rtt: 20, offset: 108 }]);
  // The player's clock shifted 50 ms: the old best tells of a mapping that is gone.
  assert.deepEqual(keptSamples(agreeing, { rtt: 4, offset: 150 }), [{ rtt: 4, offset: 150 }]);
  // The last eight at most.
  const many = Array.from({ length: 12 }, (_, i) => ({ rtt: 1, offset: 100 + i * 0.1 }));
  assert.equal(many.reduce(keptSamples, [] as { rtt: number; offset: number }[]).length, 8);
});

Deno.test("FrameTime.next() never draws back: held while the clock is behind it, then follows", () => {
  const time = new FrameTime();
  let drawn = time.next(0, 1000, FRAME);
  // The player's clock holds still for 1.5 s (a shift down): the frames slow, then hold.
  for (let t = FRAME; t < 1500; t += FRAME) {
    const next = time.next(t, 1000, FRAME);
    assert.ok(next >= drawn, `drawn went back from ${drawn} to ${next} at page time ${t}`);
    drawn = next;
  }
  // Stepped back by a second (a new estimate of the clock): held until it is reached, not slewed.
  const held = drawn;
  const t0 = 1500;
  const lags = frames(time, t0, 120, held - 1000 - t0);
  const drawnThen = (i: number) => i * FRAME + held - 1000 - lags[i]!;
  let heldFrames = 0;
  for (; heldFrames < 120 && drawnThen(heldFrames) < held + 1e-9; heldFrames++) {
    assert.ok(
      Math.abs(drawnThen(heldFrames) - held) < 1e-9,
      `held at ${held}: ${drawnThen(heldFrames)}`,
    );
  }
  assert.ok(heldFrames >= 59, `held for the second the clock took to reach it: ${heldFrames}`);
  assert.ok(Math.abs(lags.at(-1)!) < 0.5, `then on the clock: ${lags.at(-1)}`);
});

Deno.test("estimateOf() takes the shortest round trip's offset, off by half that round trip", () => {
  const pong = (t0: number, now: number, t1: number) => ({
    rtt: t1 - t0,
    offset: now - (t0 + t1) / 2,
  });
  let samples = keptSamples([], pong(1000, 6010, 1020)); // the player read its clock in those 20 ms
  assert.deepEqual(estimateOf(samples), { offset: 5000, errorMs: 10 });
  samples = keptSamples(samples, pong(2000, 7002, 2004)); // a shorter round trip: the better one
  assert.deepEqual(estimateOf(samples), { offset: 5000, errorMs: 2 });
  samples = keptSamples(samples, pong(3000, 8010, 3060)); // a longer one that agrees: not used
  assert.deepEqual(estimateOf(samples), { offset: 5000, errorMs: 2 });
  samples = keptSamples(samples, pong(4000, 9080, 4040)); // the clock moved 60 ms: a new estimate
  assert.deepEqual(estimateOf(samples), { offset: 5060, errorMs: 20 });
});
