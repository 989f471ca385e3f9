/**
 * The clock probe's judging: each round's filtered offset against the truth, and the wall clock
 * gap that puts two processes' clocks on one truth (`server/rigs/clock/probe.ts`).
 */
import assert from "node:assert/strict";
import { epochMonotonicClock, skewedClock } from "../../../../server/rigs/clock/local_clock.ts";
import { judgeRounds, wallClockGap } from "../../../../server/rigs/clock/probe.ts";

Deno.test("judgeRounds() holds each round's offset to the truth given, within its own estimate", () => {
  const series = { rounds: 3, offsets: [250.5, 251.5], errors: [1, 1], delays: [2, 2] };
  const atTruth = judgeRounds(series, 250);
  assert.equal(atTruth.answered, 2);
  assert.equal(atTruth.withinEstimate, 1);
  assert.deepEqual(atTruth.offsetError, { p50: 1.5, p95: 1.5, max: 1.5 });
  // The same rounds judged against a truth 1 ms on (the two clocks' disagreement added).
  assert.equal(judgeRounds(series, 251).withinEstimate, 2);
});

Deno.test("wallClockGap() reads a clock's distance from the wall clock: a skew of 250 ms as 250", () => {
  const own = wallClockGap();
  const skewed = wallClockGap(skewedClock(epochMonotonicClock, 250));
  // Each is a median of readings taken as the wall clock's millisecond ticks; a reading is off
  // only by what passes between the tick and the clock's read.
  assert.ok(Math.abs(skewed - own - 250) < 1, `${skewed} - ${own}`);
  assert.ok(Math.abs(own) < 1, `this process's own gap: ${own}`);
});
