import assert from "node:assert/strict";
import { VirtualClock } from "../../player/clock.ts";

Deno.test("VirtualClock.advance() fires due timers in time order at their due time", () => {
  const clock = new VirtualClock();
  const fired: Array<[string, number]> = [];
  clock.setTimer(300, () => fired.push(["b", clock.now()]));
  clock.setTimer(100, () => {
    fired.push(["a", clock.now()]);
    clock.setTimer(200, () => fired.push(["a2", clock.now()]));
  });
  const late = clock.setTimer(900, () => fired.push(["never", clock.now()]));
  clock.clearTimer(late);
  clock.advance(500);
  assert.deepEqual(fired, [["a", 100], ["a2", 200], ["b", 300]]);
  assert.equal(clock.now(), 500);
  assert.equal(clock.pendingTimers, 0);
  assert.throws(() => clock.advance(-1), RangeError);
});
