/**
 * `parseIsfApart` answers what `parseIsf` answers, on a worker, whatever the
 * time it takes: under a stalled clock (time never passes) a check still
 * answers its verdict; a slow worker that reports progress is never ended;
 * only a worker that makes no progress at all is given up on, and that is
 * `IsfCheckStalled` (retryable), never a verdict on the code.
 */
import assert from "node:assert/strict";
import { VirtualClock } from "../../../player/clock.ts";
import { IsfCheckStalled, parseIsfApart } from "../../../player/isf/apart.ts";
import { parseIsf } from "../../../player/isf/mod.ts";
import { INVERT } from "./_shaders.ts";

const STAND_INS = new URL("./", import.meta.url);
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

Deno.test("parseIsfApart() never ends a slow worker that makes progress", async () => {
  const clock = new VirtualClock();
  // A full period of the watch passes at each of its ten reports: ten periods in all.
  const result = await parseIsfApart(INVERT, "effect", {
    clock,
    stallMs: 1000,
    workerUrl: new URL("_slow_worker.ts", STAND_INS).href,
    onProgress: () => clock.advance(1000),
  });
  assert.deepEqual(result, { ok: false, problems: [{ line: 1, column: 1, message: "slow" }] });
  assert.equal(clock.now(), 10_000);
});

Deno.test("parseIsfApart() gives up on a worker that makes no progress: retryable, not a verdict", async () => {
  const clock = new VirtualClock();
  const check = parseIsfApart(INVERT, "effect", {
    clock,
    stallMs: 1000,
    workerUrl: new URL("_silent_worker.ts", STAND_INS).href,
  });
  clock.advance(1000);
  clock.advance(1000);
  const error = await check.then(() => null, (e) => e);
  assert.ok(error instanceof IsfCheckStalled, String(error));
  assert.equal(error.code, "CHECK_STALLED");
  assert.match(error.message, /no progress for 1 s .*not a verdict on the code.*send it again/);
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
