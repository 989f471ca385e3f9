/**
 * `parseIsfApart` answers what `parseIsf` answers, in a process of its own,
 * whatever the time it takes: under a stalled clock (time never passes) a check
 * still answers its verdict; a slow check that reports progress is never ended;
 * only one that makes no progress at all is given up on, and that is
 * `IsfCheckStalled` (retryable), never a verdict on the code. A check past its
 * memory ceiling (its own look, or V8's limit) is a refusal: too large to check.
 */
import assert from "node:assert/strict";
import { VirtualClock } from "../../../player/clock.ts";
import { IsfCheckStalled, parseIsfApart, tooLargeProblem } from "../../../player/isf/apart.ts";
import { CHECKER_ENV, CHECKER_ENV_SET } from "../../../player/isf/check_child.ts";
import { parseIsf } from "../../../player/isf/mod.ts";
import { INVERT } from "../../../tools/testing/isf_shaders.ts";

/** The command line of a stand-in for the checker's process. */
function standIn(name: string, ...flags: string[]): string[] {
  const path = new URL(name, import.meta.url).pathname;
  return [Deno.execPath(), "run", "--quiet", ...flags, path];
}
const BROKEN_LCD = await Deno.readTextFile(
  new URL("../../../tools/reliability/isf_corpus/Broken LCD.fs", import.meta.url),
);

Deno.test("parseIsfApart() answers what parseIsf() answers", async () => {
  assert.deepEqual(await parseIsfApart(INVERT, "effect"), parseIsf(INVERT, "effect"));
  const typo = INVERT.replace("amount)", "amont)");
  assert.deepEqual(await parseIsfApart(typo, "effect"), parseIsf(typo, "effect"));
});

Deno.test("parseIsfApart() answers the same verdict under a stalled clock", async () => {
  // Time never passes: a check bounded by time would never end, or refuse at once.
  const clock = new VirtualClock();
  let reports = 0;
  const onProgress = () => reports++;
  const result = await parseIsfApart(BROKEN_LCD, "effect", { clock, onProgress });
  assert.deepEqual(result, parseIsf(BROKEN_LCD, "effect"));
  assert.ok(result.ok);
  assert.ok(reports > 0, "the worker reported its progress");
  const refused = await parseIsfApart(BROKEN_LCD, "visualizer", { clock });
  assert.deepEqual(refused, parseIsf(BROKEN_LCD, "visualizer"));
});

Deno.test("parseIsfApart() cuts a check by its work budget, the same as parseIsf()", async () => {
  const bounds = { parseSteps: 50 };
  const result = await parseIsfApart(INVERT, "effect", { bounds, clock: new VirtualClock() });
  assert.deepEqual(result, parseIsf(INVERT, "effect", { bounds }));
  assert.match(JSON.stringify(result), /the check stopped at its bound: parsing the code/);
});

Deno.test("parseIsfApart() never ends a slow check that makes progress", async () => {
  const clock = new VirtualClock();
  // A full period of the watch passes at each of its ten reports: ten periods in all.
  const result = await parseIsfApart(INVERT, "effect", {
    clock,
    stallMs: 1000,
    command: standIn("_slow_checker.ts"),
    onProgress: () => clock.advance(1000),
  });
  assert.deepEqual(result, { ok: false, problems: [{ line: 1, column: 1, message: "slow" }] });
  assert.equal(clock.now(), 10_000);
});

Deno.test("parseIsfApart() gives up on a check that makes no progress: retryable, not a verdict", async () => {
  const clock = new VirtualClock();
  const check = parseIsfApart(INVERT, "effect", {
    clock,
    stallMs: 1000,
    command: standIn("_silent_checker.ts"),
  });
  clock.advance(1000);
  clock.advance(1000);
  const error = await check.then(() => null, (e) => e);
  assert.ok(error instanceof IsfCheckStalled, String(error));
  assert.equal(error.code, "CHECK_STALLED");
  assert.match(error.message, /no progress for 1 s .*not a verdict on the code.*send it again/);
});

Deno.test("parseIsfApart() refuses code whose check passes its memory ceiling: too large to check", async () => {
  const clock = new VirtualClock();
  const tooLarge = { ok: false, problems: [tooLargeProblem()] };
  // Its own look at its heap, at a progress report (a tiny ceiling: 1 MB).
  assert.deepEqual(await parseIsfApart(BROKEN_LCD, "effect", { clock, heapMb: 1 }), tooLarge);
  // V8's limit, where memory grows between two looks.
  const greedy = standIn("_greedy_checker.ts", "--v8-flags=--max-old-space-size=32");
  assert.deepEqual(await parseIsfApart(INVERT, "effect", { clock, command: greedy }), tooLarge);
  assert.match(tooLargeProblem().message, /^the code is too large to check: .* over 256 MB/);
});

Deno.test("parseIsfApart() answers a check that fails in its process as a problem, not a rejection", async () => {
  // Not code at all: parseIsf throws in the checker (a check that fails, whatever the cause).
  const result = await parseIsfApart(42 as unknown as string, "effect");
  assert.equal(result.ok, false);
  const [problem, ...more] = result.ok ? [] : result.problems;
  assert.equal(more.length, 0);
  assert.equal(problem!.line, 1);
  assert.match(problem!.message, /^the code could not be checked: /);
});

Deno.test("parseIsfApart() gives its process none of the player's environment but what it needs", async () => {
  Deno.env.set("CUEPORT_TEST_SECRET", "not for the checker");
  try {
    const command = standIn("_env_checker.ts", "--allow-env");
    const result = await parseIsfApart(INVERT, "effect", { command }) as unknown as {
      env: string[];
    };
    assert.ok(!result.env.includes("CUEPORT_TEST_SECRET"), result.env.join(", "));
    // Deno sets these two in its own process (its Node shim's), whatever it was given.
    const denoOwn = ["DENO_NODE_SHIM_ACTIVE", "PATH"];
    const allowed = new Set([...CHECKER_ENV, ...Object.keys(CHECKER_ENV_SET), ...denoOwn]);
    assert.deepEqual(result.env.filter((name) => !allowed.has(name)), []);
    assert.ok(result.env.includes("RUST_BACKTRACE"));
  } finally {
    Deno.env.delete("CUEPORT_TEST_SECRET");
  }
});

Deno.test("parseIsfApart() takes a message of no kind it knows as the checker's fault, not as over the ceiling", async () => {
  // A clock that never moves: no stall, only the message and the end of the process.
  const clock = new VirtualClock();
  const command = standIn("_stray_checker.ts");
  const answer = await parseIsfApart(INVERT, "effect", { clock, command }).then((r) => r, (e) => e);
  assert.ok(answer instanceof IsfCheckStalled, JSON.stringify(answer));
  assert.match(answer.message, /not a verdict on the code/);
});

Deno.test("parseIsfApart() refuses code over codeCharacters in the player, with no process started", async () => {
  const long = INVERT + `\n// ${"x".repeat(200_000)}`;
  // A checker that cannot start: a check that started one would be CHECK_STALLED.
  const command = ["/nonexistent/cueport-checker"];
  const answer = await parseIsfApart(long, "effect", { command }).then((r) => r, (e) => e);
  assert.deepEqual(answer, parseIsf(long, "effect"));
  const small = await parseIsfApart(INVERT, "effect", { command, bounds: { codeCharacters: 10 } })
    .then((r) => r, (e) => e);
  assert.deepEqual(small, parseIsf(INVERT, "effect", { bounds: { codeCharacters: 10 } }));
  assert.match(JSON.stringify(small), /over 10 characters: make it shorter/);
});
