/**
 * `checkIsfPreset` with the output's GL compile: ES 1.00 code that GL refuses
 * is taken when its lifted ES 3.00 sources compile (as the output then draws
 * them), and refused at the lines of the ES 1.00 log when they do not. The GL
 * here is a recording stand-in; the real one is in
 * tests/player/isf/isf_compile_test.ts and tests/player/output/isf_passes_test.ts.
 */
import assert from "node:assert/strict";
import { checkIsfPreset } from "../../../player/edits/preset_rules.ts";
import { parseIsf } from "../../../player/isf/mod.ts";
import { LOOP_BOUND } from "../isf/_passes_shaders.ts";

const preset = { kind: "effect" as const, type: "isf", code: LOOP_BOUND };
const parsed = parseIsf(LOOP_BOUND, "effect");
if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
const { program } = parsed;
const loopLine = LOOP_BOUND.split("\n").findIndex((l) => l.includes("for (")) + 1;
/** ANGLE's log for the loop, at its line of the ES 1.00 source. */
const LOOP_LOG = `ERROR: 0:${
  program.lineOffset + loopLine
}: 'i' : Loop index cannot be compared with non-constant expression`;

Deno.test("checkIsfPreset() takes ES 1.00 code GL refuses when its ES 3.00 sources compile", async () => {
  const asked: string[] = [];
  const check = await checkIsfPreset(preset, undefined, (_vertex, fragment) => {
    asked.push(fragment);
    return Promise.resolve(fragment === program.fragment ? LOOP_LOG : "");
  });
  assert.deepEqual(check?.codeProblems, []);
  assert.deepEqual(asked, [program.fragment, program.lifted!.fragment]);
});

Deno.test("checkIsfPreset() refuses at the ES 1.00 log's line when neither compiles", async () => {
  const check = await checkIsfPreset(
    preset,
    undefined,
    (_vertex, fragment) =>
      Promise.resolve(fragment === program.fragment ? LOOP_LOG : "ERROR: 0:3: 'other' : log"),
  );
  assert.equal(check?.codeProblems[0]?.line, loopLine);
  assert.match(check?.codeProblems[0]?.message ?? "", /Loop index/);
});

Deno.test("checkIsfPreset() asks GL once for code it compiles; no page (null) takes the code", async () => {
  let asked = 0;
  await checkIsfPreset(preset, undefined, () => {
    asked++;
    return Promise.resolve("");
  });
  assert.equal(asked, 1);
  const alone = await checkIsfPreset(preset, undefined, () => Promise.resolve(null));
  assert.deepEqual(alone?.codeProblems, []);
});
