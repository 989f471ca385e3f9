/**
 * `ProgressWatch` gives up on a worker only when it reported no progress over
 * two looks in a row: a slow one that reports is watched on for as long as it
 * works. On a virtual clock: no test waits for time to pass.
 */
import assert from "node:assert/strict";
import { VirtualClock } from "../../player/clock.ts";
import { ProgressWatch } from "../../lib/progress_watch.ts";

Deno.test("ProgressWatch never gives up on a worker that reports, however slowly", () => {
  const clock = new VirtualClock();
  let stalls = 0;
  const watch = new ProgressWatch(clock, 1000, () => stalls++);
  for (let i = 0; i < 100; i++) {
    watch.progress();
    clock.advance(1000); // one report a period: 100 periods pass
  }
  assert.equal(stalls, 0);
  watch.stop();
  assert.equal(clock.pendingTimers, 0);
});

Deno.test("ProgressWatch gives up once, at the second look without progress", () => {
  const clock = new VirtualClock();
  let stalls = 0;
  const watch = new ProgressWatch(clock, 1000, () => stalls++);
  clock.advance(1000);
  assert.equal(stalls, 0, "one quiet look is not enough");
  clock.advance(1000);
  assert.equal(stalls, 1);
  clock.advance(10_000);
  assert.equal(stalls, 1, "once");
  assert.equal(clock.pendingTimers, 0);
  watch.stop();
});

Deno.test("ProgressWatch counts quiet looks from the last progress", () => {
  const clock = new VirtualClock();
  let stalls = 0;
  const watch = new ProgressWatch(clock, 1000, () => stalls++);
  clock.advance(1000); // quiet
  watch.progress();
  clock.advance(1000); // moved: the count starts again
  clock.advance(1000); // quiet
  assert.equal(stalls, 0);
  clock.advance(1000);
  assert.equal(stalls, 1);
  watch.stop();
});
