/**
 * ISF's TIMEDELTA and FRAMEINDEX on the output (`page/render_scale.js` `nextFrame`, beside the frame times the render scale follows): from the
 * frames really drawn, whatever the display's rate; the first one frame of the project's fps.
 */
import assert from "node:assert/strict";
import { frameTimes, nextFrame } from "../../../player/output/page/render_scale.js";

Deno.test("nextFrame(): TIMEDELTA is the clock between frames drawn, FRAMEINDEX their count", () => {
  const times = frameTimes();
  nextFrame(times, 1000, 25);
  assert.deepEqual([times.index, times.timeDelta], [0, 1 / 25], "the first: one frame at 25 fps");
  nextFrame(times, 1040, 25);
  assert.deepEqual([times.index, times.timeDelta], [1, 0.04]);
  // A frame the machine could not draw: the next one is two periods after the last drawn.
  nextFrame(times, 1120, 25);
  assert.deepEqual([times.index, times.timeDelta], [2, 0.08]);
  // A clock held (a virtual clock, a picture asked for at once): no time passed.
  nextFrame(times, 1120, 25);
  assert.deepEqual([times.index, times.timeDelta], [3, 0]);
  // A clock read earlier than the last (a new offset estimate) is no negative time.
  nextFrame(times, 1110, 25);
  assert.deepEqual([times.index, times.timeDelta], [4, 0]);
});

Deno.test("nextFrame(): the first frame's TIMEDELTA follows the project's fps", () => {
  const times = frameTimes();
  nextFrame(times, 0, 60);
  assert.equal(times.timeDelta, 1 / 60);
});
