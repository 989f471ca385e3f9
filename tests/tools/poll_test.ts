import assert from "node:assert/strict";
import { Poll } from "../../tools/testing/until.ts";

Deno.test("Poll paces a wait's checks: 20 ms after a cheap check, twice a costly one's time, at most 1 s", async () => {
  const poll = new Poll();
  assert.equal(poll.pauseMs, 20);
  let now = 0;
  const realNow = performance.now;
  performance.now = () => now;
  try {
    assert.equal(await poll.check(() => (now += 3, false)), false);
    assert.equal(poll.pauseMs, 20, "a 3 ms check: polled every 20 ms");
    assert.equal(await poll.check(() => (now += 150, true)), true);
    assert.equal(poll.pauseMs, 300, "a 150 ms check: twice its time");
    await assert.rejects(poll.check(() => {
      now += 4000;
      throw new Error("the check failed");
    }));
    assert.equal(poll.pauseMs, 1000, "a 4 s check: at most a second");
  } finally {
    performance.now = realNow;
  }
});
