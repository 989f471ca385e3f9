/**
 * `checkIsfPreset`'s verdict is the bounded check's alone, the same at any
 * load and with or without an output: ES 1.00 code that a GL would refuse for
 * its loop limits is taken (the output compiles its lifted ES 3.00 sources as
 * it draws), a type error refused at its line (the check compiles); a check whose worker makes no progress is a retryable
 * UNAVAILABLE refusal, never a verdict on the code.
 */
import assert from "node:assert/strict";
import { VirtualClock } from "../../../player/clock.ts";
import { Refusal } from "../../../player/errors.ts";
import { checkIsfPreset } from "../../../player/edits/preset_rules.ts";
import { RpcErrorCode } from "../../../protocol/jsonrpc.ts";
import { LOOP_BOUND } from "../isf/_passes_shaders.ts";
import { INVERT } from "../../../tools/testing/isf_shaders.ts";

const preset = { kind: "effect" as const, type: "isf", code: LOOP_BOUND };

Deno.test("checkIsfPreset() takes what GL draws and refuses a type error at its line, with no output", async () => {
  const check = await checkIsfPreset(preset, undefined, { clock: new VirtualClock() });
  assert.deepEqual(check?.codeProblems, []);
  // A type error only a GL compiler sees: the check's compiler (glslang) sees it too.
  const typeError = INVERT.replace("gl_FragColor = vec4(", "gl_FragColor = vec3(");
  const typed = await checkIsfPreset({ ...preset, code: typeError }, undefined);
  const line = typeError.split("\n").findIndex((l) => l.includes("gl_FragColor")) + 1;
  assert.equal(typed?.codeProblems[0]?.line, line, JSON.stringify(typed?.codeProblems));
});

Deno.test("checkIsfPreset() answers a check that made no progress as retryable UNAVAILABLE", async () => {
  const clock = new VirtualClock();
  const check = checkIsfPreset(preset, undefined, {
    clock,
    stallMs: 1000,
    command: [
      Deno.execPath(),
      "run",
      "--quiet",
      new URL("../isf/_silent_checker.ts", import.meta.url).pathname,
    ],
  });
  clock.advance(2000);
  const error = await check.then(() => null, (e) => e);
  assert.ok(error instanceof Refusal, String(error));
  assert.equal(error.code, RpcErrorCode.UNAVAILABLE);
  assert.deepEqual(error.data, { reason: "CHECK_STALLED" });
  assert.match(error.message, /not a verdict on the code/);
});
