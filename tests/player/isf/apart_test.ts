/**
 * `parseIsfApart` answers what `parseIsf` answers, on a worker, and refuses
 * code whose check outlasts its deadline while the calling thread runs on.
 */
import assert from "node:assert/strict";
import { parseIsfApart } from "../../../player/isf/apart.ts";
import { parseIsf } from "../../../player/isf/mod.ts";
import { INVERT } from "./_shaders.ts";

Deno.test("parseIsfApart() answers what parseIsf() answers", async () => {
  assert.deepEqual(await parseIsfApart(INVERT, "effect"), parseIsf(INVERT, "effect"));
  const typo = INVERT.replace("amount)", "amont)");
  assert.deepEqual(await parseIsfApart(typo, "effect"), parseIsf(typo, "effect"));
});

Deno.test("parseIsfApart() refuses a macro that expands without bound, and this thread runs on meanwhile", async () => {
  const bomb = INVERT.replace(
    "void main() {",
    "#define A(x) x+x\n#define B(x) A(A(A(A(x))))\n#define C(x) B(B(B(B(x))))\nvoid main() {\n  float bomb = C(C(1.0));",
  );
  let ticks = 0;
  const ticker = setInterval(() => ticks++, 10);
  try {
    const result = await parseIsfApart(bomb, "effect", 500);
    assert.deepEqual(result, {
      ok: false,
      problems: [{
        line: 1,
        column: 1,
        message:
          "checking the code took more than 0.5 s: it is too big, or a macro expands without bound",
      }],
    });
  } finally {
    clearInterval(ticker);
  }
  assert.ok(ticks > 0, "timers ran while the worker worked");
});

Deno.test("parseIsfApart() answers a check that fails on its worker as a problem, not a rejection", async () => {
  // Not code at all: parseIsf throws on the worker (a check that fails, whatever the cause).
  const result = await parseIsfApart(42 as unknown as string, "effect");
  assert.equal(result.ok, false);
  const [problem, ...more] = result.ok ? [] : result.problems;
  assert.equal(more.length, 0);
  assert.equal(problem!.line, 1);
  assert.match(problem!.message, /^the code could not be checked: /);
});
