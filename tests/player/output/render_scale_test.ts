/**
 * The output page's render scale controller (`player/output/page/render_scale.js`), fed
 * frame times as a page on a busy machine would: it steps down after slow seconds, holds
 * at its smallest, steps back up after seconds that keep up, and waits longer after each
 * step up that failed, so it does not oscillate.
 */
import assert from "node:assert/strict";
import {
  createScaleController,
  DOWN_AFTER,
  RENDER_SCALES,
  UP_AFTER,
  UP_AFTER_MAX,
} from "../../../player/output/page/render_scale.js";

type Controller = ReturnType<typeof createScaleController>;
type Answer = ReturnType<Controller["second"]>;

/** One second of `frames` frames, each `ms` after the one before; the controller's answer. */
function second(controller: Controller, frames: number, ms: number): Answer {
  for (let i = 0; i < frames; i++) controller.frame(ms);
  return controller.second();
}

/** The scale after each of `seconds` seconds of `frames` frames, each `ms` apart. */
function scales(controller: Controller, seconds: number, frames: number, ms: number): number[] {
  return Array.from({ length: seconds }, () => second(controller, frames, ms).scale);
}

Deno.test("createScaleController() keeps scale 1 while the page draws the display's frames", () => {
  const controller = createScaleController({ fps: 30 });
  assert.deepEqual(scales(controller, 10, 30, 1000 / 30), Array(10).fill(1));
  assert.equal(controller.second().isChanged, false, "a second without frames is not judged");
});

Deno.test("createScaleController() steps down after slow seconds in a row, to its smallest", () => {
  const controller = createScaleController({ fps: 30 });
  assert.equal(DOWN_AFTER, 2);
  // 4 frames a second: each step after two slow seconds, then it holds at the smallest.
  assert.deepEqual(scales(controller, 8, 4, 250), [1, 0.75, 0.75, 0.5, 0.5, 0.35, 0.35, 0.35]);
  assert.equal(RENDER_SCALES.at(-1), 0.35);
  // One slow second between good ones is not enough.
  const once = createScaleController({ fps: 30 });
  assert.deepEqual(
    [second(once, 4, 250), second(once, 30, 33), second(once, 4, 250)].map((a) => a.scale),
    [1, 1, 1],
  );
});

Deno.test("createScaleController() says why, once per change", () => {
  const controller = createScaleController({ fps: 30 });
  const answers = Array.from({ length: 3 }, () => second(controller, 4, 250));
  assert.deepEqual(answers.map((a) => a.isChanged), [false, true, false]);
  assert.deepEqual(answers[1], {
    scale: 0.75,
    reason: "the page drew 4 frames a second of 30 at scale 1",
    isChanged: true,
  });
});

Deno.test("createScaleController() steps back up after seconds that keep up; at 1 the reason is null", () => {
  const controller = createScaleController({ fps: 30 });
  scales(controller, 2, 4, 250);
  assert.equal(controller.scale, 0.75);
  const good = Array.from({ length: UP_AFTER }, () => second(controller, 30, 1000 / 30));
  assert.deepEqual(good.map((a) => a.scale), [0.75, 0.75, 0.75, 0.75, 1]);
  assert.deepEqual(good.at(-1), { scale: 1, reason: null, isChanged: true });
});

Deno.test("createScaleController() waits twice as long after each step up that failed (hysteresis)", () => {
  const controller = createScaleController({ fps: 30 });
  scales(controller, 2, 4, 250); // 0.75
  /** Good seconds until it steps up, then slow seconds until it is down again. */
  const cycle = () => {
    let good = 0;
    while (!second(controller, 30, 33).isChanged) good++;
    scales(controller, DOWN_AFTER, 4, 250);
    assert.equal(controller.scale, 0.75);
    return good + 1;
  };
  assert.deepEqual(Array.from({ length: 6 }, cycle), [5, 10, 20, 40, 60, 60]);
  // A step up that holds for a minute was right: the next one comes after 5 good seconds again.
  while (!second(controller, 30, 33).isChanged);
  scales(controller, UP_AFTER_MAX, 30, 33);
  scales(controller, DOWN_AFTER, 4, 250);
  assert.equal(controller.scale, 0.75);
  assert.deepEqual(scales(controller, UP_AFTER, 30, 33).at(-1), 1);
});

Deno.test("createScaleController() with a tiny frame budget finds every second slow", () => {
  const controller = createScaleController({ fps: 30, budgetMs: 0.001 });
  assert.deepEqual(scales(controller, 6, 30, 1000 / 30), [1, 0.75, 0.75, 0.5, 0.5, 0.35]);
});

Deno.test("createScaleController() holds between slow and keeping up, and needs good seconds in a row", () => {
  const controller = createScaleController({ fps: 30 });
  scales(controller, 2, 4, 250);
  // 28.5 frames a second: not slow, not quite keeping up (within 5 %).
  const between = 1000 / 28.5;
  assert.deepEqual(scales(controller, 10, 28, between), Array(10).fill(0.75));
  const mixed = [...scales(controller, 4, 30, 33), ...scales(controller, 1, 28, between)];
  assert.deepEqual([...mixed, ...scales(controller, 4, 30, 33)], Array(9).fill(0.75));
  assert.equal(second(controller, 30, 33).scale, 1);
});
