import assert from "node:assert/strict";
import { formatRatio, pairedRatio } from "../../bench/_stats.ts";

Deno.test("pairedRatio: each round's ratio comes from that round's two runs", () => {
  // The machine slowed down in round 2 for both runs: paired, that round still reads 0.9. The
  // ratio of the two medians over different rounds (45 / 100) would read 0.45.
  const r = pairedRatio([
    { baseline: 100, measured: 90 },
    { baseline: 50, measured: 45 },
    { baseline: 100, measured: 40 },
  ]);
  assert.deepEqual(r.ratios, [0.9, 0.9, 0.4]);
  assert.equal(r.median, 0.9);
  assert.equal(r.min, 0.4);
  assert.equal(r.max, 0.9);
});

Deno.test("pairedRatio: the median of an odd count is the middle ratio, whatever the order", () => {
  const r = pairedRatio([
    { baseline: 10, measured: 12 },
    { baseline: 10, measured: 8 },
    { baseline: 10, measured: 10 },
  ]);
  assert.equal(r.median, 1);
  assert.equal(r.min, 0.8);
  assert.equal(r.max, 1.2);
});

Deno.test("pairedRatio: the median of an even count is the mean of the middle two", () => {
  const r = pairedRatio([
    { baseline: 4, measured: 2 },
    { baseline: 4, measured: 4 },
    { baseline: 4, measured: 3 },
    { baseline: 4, measured: 8 },
  ]);
  assert.equal(r.median, 0.875);
  assert.equal(r.min, 0.5);
  assert.equal(r.max, 2);
});

Deno.test("pairedRatio: one round is its own median and range", () => {
  const r = pairedRatio([{ baseline: 200, measured: 150 }]);
  assert.deepEqual(r, { ratios: [0.75], median: 0.75, min: 0.75, max: 0.75 });
});

Deno.test("pairedRatio: no rounds, or a baseline that did nothing, is an error, not a ratio", () => {
  assert.throws(() => pairedRatio([]), /no rounds/);
  assert.throws(
    () => pairedRatio([{ baseline: 100, measured: 90 }, { baseline: 0, measured: 50 }]),
    /round 2 has a baseline of 0/,
  );
  assert.throws(() => pairedRatio([{ baseline: NaN, measured: 1 }]), /baseline of NaN/);
});

Deno.test("formatRatio: the median, then the range, two decimals", () => {
  const r = pairedRatio([
    { baseline: 1000, measured: 930 },
    { baseline: 1000, measured: 881 },
    { baseline: 1000, measured: 969 },
  ]);
  assert.equal(formatRatio(r), "0.93 (0.88-0.97)");
});
