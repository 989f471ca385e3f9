/**
 * Leniency where ISF hosts agree (issue 45): what other hosts take from the collection, Cueport
 * takes too, with a warning in the answer where it changed something.
 * @module
 */
import assert from "node:assert/strict";
import { PlayerApp } from "../../../player/app.ts";
import { VirtualClock } from "../../../player/clock.ts";
import { parseIsf } from "../../../player/isf/mod.ts";
import { fixtureDataDir } from "../../../tools/testing/fixture.ts";
import { COLLECTION_DIR } from "./_collection.ts";

/** Twirl.fs of ISF-Files: its `radius` has DEFAULT 5, MIN 0, MAX 1 (line 11 opens it). */
const TWIRL = await Deno.readTextFile(new URL("Twirl.fs", COLLECTION_DIR));

Deno.test("parseIsf() clamps a DEFAULT outside MIN and MAX into them, with a warning at the input", () => {
  const result = parseIsf(TWIRL, "effect");
  assert.ok(result.ok, JSON.stringify(!result.ok && result.problems));
  const radius = result.program.parameters.find((p) => p.name === "radius");
  assert.deepEqual(radius, { name: "radius", type: "number", min: 0, max: 1, default: 1 });
  assert.deepEqual(result.program.warnings, [{
    line: 11,
    column: 9,
    message: "INPUTS.1: DEFAULT 5 is above MAX 1: clamped to 1, as other ISF hosts do",
  }]);
});

Deno.test("parseIsf() names the side a DEFAULT is on when MIN equals MAX", () => {
  const result = parseIsf(TWIRL.replace('"MIN": 0,', '"MIN": 1,'), "effect");
  assert.ok(result.ok, JSON.stringify(!result.ok && result.problems));
  assert.match(result.program.warnings[0]!.message, /DEFAULT 5 is above MAX 1: clamped to 1/);
});

Deno.test("parseIsf() still refuses MIN above MAX: there is no range to clamp into", () => {
  const result = parseIsf(TWIRL.replace('"MIN": 0,', '"MIN": 2,'), "effect");
  assert.ok(!result.ok);
  assert.match(result.problems[0]!.message, /^INPUTS\.1: MIN 2 is above MAX 1$/);
});

Deno.test("preset.validate of a DEFAULT out of range answers valid, with its warning", async () => {
  const dataDir = await fixtureDataDir();
  const app = await PlayerApp.open({ dataDir, clock: new VirtualClock() });
  try {
    const params = { kind: "effect", name: "Twirl", type: "isf", code: TWIRL };
    const answer = await app.applyEdits({
      projectId: null,
      edits: [{ name: "preset.validate", params }],
    });
    assert.deepEqual(answer.edits[0]!.result, {
      valid: true,
      problems: [],
      warnings: [
        "code: line 11, column 9: INPUTS.1: DEFAULT 5 is above MAX 1: clamped to 1, as other ISF hosts do",
      ],
    });
    const added = await app.applyEdits({
      projectId: null,
      edits: [{ name: "preset.add", params }],
    });
    assert.match(
      added.edits[0]!.message,
      /added \(warning: code: line 11, column 9: .*clamped to 1/,
    );
  } finally {
    await app.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});
