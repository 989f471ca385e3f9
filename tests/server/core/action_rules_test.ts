import assert from "node:assert/strict";
import { ACTIONS } from "../../../protocol/actions.ts";
import { BASE_SHIFTED_ACTIONS, CueportError, normalizeAction } from "../../../server/core/mod.ts";

/** Specification (`api-6.0.md`, Actions, rule 4): the actions velocity applies to. */
const SPEC_VELOCITY_ACTIONS = new Set([
  "TRIGGER_CLIP_IN",
  "PLAY_CLIP_IN",
  "PLAY_CLIP_BY_INDEX_IN",
  "RESTART_CLIP_IN",
]);

function fails(request: Parameters<typeof normalizeAction>[0]): CueportError {
  try {
    normalizeAction(request);
  } catch (error) {
    assert.ok(error instanceof CueportError);
    assert.equal(error.code, "INVALID_MESSAGE");
    return error;
  }
  throw new Error("expected INVALID_MESSAGE");
}

Deno.test("normalizeAction() coerces every param to a string, then parses it by kind", () => {
  assert.deepEqual(normalizeAction({ name: "SEEK_CLIP_IN", params: ["c1", "0.25"] }).params, {
    clipID: "c1",
    percent: 0.25,
  });
  assert.deepEqual(normalizeAction({ name: "SONG_SELECT_IN", params: [2, "false"] }).params, {
    index: 2,
    stopPlaying: false,
  });
  assert.deepEqual(normalizeAction({ name: "STOP_CLIP_IN", params: [42, 1] }).params, {
    clipID: "42",
    maybePlayBackground: true,
  });
  assert.deepEqual(normalizeAction({ name: "SET_CONTROL", params: ["b", -3.5] }).params, {
    controlID: "B",
    value: -3.5,
  });
  assert.equal(
    normalizeAction({ name: "CLIP_DIRECTION", params: ["c", "reverse"] }).params.direction,
    "backward",
  );
});

Deno.test("normalizeAction() with base 1 shifts exactly the three positional actions", () => {
  assert.equal(
    normalizeAction({ name: "PLAY_CLIP_BY_INDEX_IN", params: [1], base: 1 }).params.index,
    0,
  );
  assert.equal(
    normalizeAction({ name: "RELEASE_CLIP_BY_INDEX_IN", params: ["3"], base: 1 }).params.index,
    2,
  );
  assert.equal(normalizeAction({ name: "SONG_SELECT_IN", params: [2], base: 1 }).params.index, 1);
  assert.equal(normalizeAction({ name: "SONG_SELECT_IN", params: [2], base: 0 }).params.index, 2);
  // no other action is altered, even with numeric first params
  assert.equal(
    normalizeAction({ name: "SEEK_CLIP_IN", params: ["1", 1], base: 1 }).params.clipID,
    "1",
  );
  assert.equal(normalizeAction({ name: "SET_CONTROL", params: ["A", 1], base: 1 }).params.value, 1);
  assert.equal(
    normalizeAction({ name: "SONG_SELECT_PERCENT_IN", params: [1], base: 1 }).params.percent,
    1,
  );
  assert.deepEqual([...BASE_SHIFTED_ACTIONS].sort(), [
    "PLAY_CLIP_BY_INDEX_IN",
    "RELEASE_CLIP_BY_INDEX_IN",
    "SONG_SELECT_IN",
  ]);
  const zero = fails({ name: "SONG_SELECT_IN", params: [0], base: 1 });
  assert.match(zero.message, /params\[0\] \(index\): must be 1 or more when base is 1/);
  fails({ name: "PLAY_IN", base: 2 });
  fails({ name: "PLAY_IN", base: "1" });
});

Deno.test("normalizeAction() passes velocity only for the four velocity actions", () => {
  for (const spec of ACTIONS) {
    const params = spec.params.filter((p) => !p.isOptional).map((p) =>
      p.kind === "fraction" || p.kind === "number"
        ? 0.5
        : p.kind === "index"
        ? 0
        : p.kind === "control"
        ? "a"
        : p.kind === "target"
        ? "clip:c/opacity"
        : p.kind === "direction"
        ? "forward"
        : p.kind === "presetKind"
        ? "effect"
        : p.kind === "region"
        ? "full"
        : "x"
    );
    const out = normalizeAction({ name: spec.name, params, velocity: 64 });
    assert.equal(out.velocity, SPEC_VELOCITY_ACTIONS.has(spec.name) ? 64 : undefined, spec.name);
  }
  assert.equal(normalizeAction({ name: "PLAY_CLIP_IN", params: ["c1"] }).velocity, undefined);
  for (const velocity of [-1, 128, 1.5, "64"]) {
    fails({ name: "PLAY_CLIP_IN", params: ["c1"], velocity });
  }
});

Deno.test("normalizeAction() names the field in every validation error", () => {
  assert.match(fails({ name: "NOPE" }).message, /Invalid name: unknown action "NOPE"$/);
  assert.equal(
    fails({ name: "play_in" }).message,
    'Invalid name: unknown action "play_in" (did you mean "PLAY_IN"?)',
  );
  assert.match(fails({ name: "PLAY_TOGLE_IN" }).message, /did you mean "PLAY_TOGGLE_IN"\?/);
  assert.match(fails({ name: 5 }).message, /Invalid name/);
  assert.match(
    fails({ name: "SEEK_CLIP_IN", params: ["c1"] }).message,
    /params\[1\] \(percent\): is required/,
  );
  assert.match(
    fails({ name: "SEEK_CLIP_IN", params: ["c1", 1.5] }).message,
    /params\[1\] \(percent\): must be a number from 0.0 to 1.0, got "1.5"/,
  );
  assert.match(fails({ name: "OUTPUT_LEVEL_IN", params: [-0.1] }).message, /params\[0\] \(level\)/);
  assert.match(
    fails({ name: "SET_CONTROL", params: ["AA", 1] }).message,
    /params\[0\] \(controlID\): must be a letter A to Z/,
  );
  assert.match(
    fails({ name: "SET_PARAM", params: ["c1/opacity", 1] }).message,
    /params\[0\] \(targetID\): must be of the form clip:<clipId>\/<parameter>/,
  );
  assert.match(
    fails({ name: "PLAY_IN", params: [1] }).message,
    /PLAY_IN takes at most 0 param\(s\), got 1/,
  );
  assert.match(fails({ name: "PLAY_IN", params: "x" }).message, /Invalid params: must be an array/);
  assert.match(
    fails({ name: "PLAY_CLIP_IN", params: [{ a: 1 }] }).message,
    /must be a string, number or boolean/,
  );
  assert.match(fails({ name: "PLAY_IN", projectID: "" }).message, /Invalid projectID/);
  assert.deepEqual(fails({ name: "SET_CONTROL", params: ["A", "x"] }).details, {
    field: "params[1] (value)",
    value: "x",
  });
});

Deno.test("normalizeAction() takes a number param sent as a number as its text would parse", () => {
  // Each value against the same value sent as text: the coercion rule holds either way.
  for (const value of [0.5, -3.5, 0, 1e21, 5e-324, Number.MAX_VALUE]) {
    assert.deepEqual(
      normalizeAction({ name: "SET_CONTROL", params: ["A", value] }).params,
      normalizeAction({ name: "SET_CONTROL", params: ["A", String(value)] }).params,
    );
  }
  const minusZero = normalizeAction({ name: "SET_CONTROL", params: ["A", -0] }).params.value;
  assert.ok(Object.is(minusZero, 0), "-0 reads as its text, 0");
  for (const value of [0, 0.25, 1]) {
    assert.equal(
      normalizeAction({ name: "SEEK_CLIP_IN", params: ["c1", value] }).params.percent,
      value,
    );
  }
  // Out of range: refused as the text would be, quoting the value sent.
  for (const value of [1.5, -0.01]) {
    const error = fails({ name: "SEEK_CLIP_IN", params: ["c1", value] });
    const asText = fails({ name: "SEEK_CLIP_IN", params: ["c1", String(value)] });
    assert.equal(error.message, asText.message);
    assert.equal(error.details?.value, value);
  }
  // No finite number (an OSC float may be one): refused by the body's check, as before.
  for (const value of [Infinity, -Infinity, NaN]) {
    assert.equal(
      fails({ name: "SET_CONTROL", params: ["A", value] }).details?.field,
      "params[1] (value)",
    );
  }
});
