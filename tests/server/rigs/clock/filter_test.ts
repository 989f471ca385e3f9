import assert from "node:assert/strict";
import { bestOfBurst, ClockFilter, sampleOf } from "../../../../server/rigs/clock/mod.ts";

Deno.test("sampleOf() is exact when the two ways take as long, within half the delay otherwise", () => {
  // The peer is 250 ms ahead; 3 ms each way, 1 ms to answer.
  const even = sampleOf([1000, 1253, 1254, 1007]);
  assert.equal(even.offset, 250);
  assert.equal(even.delay, 6);
  // 1 ms there, 5 ms back: the offset is 2 ms off, within half the 6 ms delay.
  const uneven = sampleOf([1000, 1251, 1252, 1007]);
  assert.equal(uneven.offset, 248);
  assert.ok(Math.abs(uneven.offset - 250) <= uneven.delay / 2);
});

Deno.test("bestOfBurst() keeps the sample with the least delay", () => {
  const samples = [
    sampleOf([0, 252, 252, 6]),
    sampleOf([10, 261, 261, 12]),
    sampleOf([20, 274, 274, 30]),
  ];
  assert.equal(bestOfBurst(samples), samples[1]);
  assert.equal(bestOfBurst([]), null);
});

Deno.test("ClockFilter.estimate() takes the least distance: half the delay, the peer's error, the drift since", () => {
  const filter = new ClockFilter({ driftPpm: 100 });
  assert.equal(filter.estimate(0), null);
  filter.add({ offset: 250.2, delay: 0.4, at: 0, peerError: 0 });
  filter.add({ offset: 249.0, delay: 2, at: 1000, peerError: 0 });
  filter.add({ offset: 250.1, delay: 0.2, at: 1000, peerError: 0.5 });
  // At 1000 ms: 0.2 + 0.1 (1 s at 100 ppm) = 0.3, 1.0, 0.1 + 0.5 = 0.6.
  const estimate = filter.estimate(1000)!;
  assert.equal(estimate.offset, 250.2);
  assert.ok(Math.abs(estimate.error - 0.3) < 1e-9);
  assert.ok(Math.abs(estimate.jitter - Math.sqrt((1.2 ** 2 + 0.1 ** 2) / 2)) < 1e-9);
  // 10 s later a new sample as good as the first one was is chosen: the first has aged 1 ms.
  filter.add({ offset: 250.3, delay: 0.4, at: 10_000, peerError: 0 });
  assert.equal(filter.estimate(10_000)!.offset, 250.3);
});

Deno.test("ClockFilter keeps its last samples only, and forgets them on clear()", () => {
  const filter = new ClockFilter({ size: 3 });
  for (let i = 0; i < 5; i++) filter.add({ offset: i, delay: 5 - i, at: i, peerError: 0 });
  assert.equal(filter.size, 3);
  assert.equal(filter.estimate(5)!.offset, 4);
  filter.clear();
  assert.equal(filter.estimate(5), null);
  assert.throws(() => new ClockFilter({ size: 0 }), RangeError);
});
