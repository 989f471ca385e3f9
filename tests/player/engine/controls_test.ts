import assert from "node:assert/strict";
import { parseTarget, shapeValue } from "../../../player/engine/controls.ts";

const target = (
  curve: "linear" | "exponential" | "logarithmic" | "smooth",
  min = 0,
  max = 1,
  invert = false,
) => ({
  target: "clip:c/opacity",
  min,
  max,
  curve,
  invert,
});

Deno.test("shapeValue() applies clamp, inversion, curve and range in that order", () => {
  assert.equal(shapeValue(0.5, target("linear", 10, 20), true), 15);
  assert.equal(shapeValue(0.5, target("exponential"), true), 0.25);
  assert.equal(shapeValue(0.25, target("logarithmic"), true), 0.5);
  assert.equal(shapeValue(0.5, target("smooth"), true), 0.5);
  assert.equal(shapeValue(0.2, target("linear", 0, 1, true), true), 0.8);
  assert.equal(shapeValue(1.5, target("linear"), true), 1);
  assert.equal(
    shapeValue(1.5, target("linear"), false),
    1.5,
    "an unclamped Control passes values through",
  );
  assert.equal(shapeValue(-2, target("exponential"), false), -4);
});

Deno.test("parseTarget() splits the Target syntax and rejects anything else", () => {
  assert.deepEqual(parseTarget("clip:abc-1/opacity"), { clipId: "abc-1", parameter: "opacity" });
  assert.equal(parseTarget("clip:/opacity"), null);
  assert.equal(parseTarget("song:a/opacity"), null);
  assert.equal(parseTarget("clip:a/"), null);
});
