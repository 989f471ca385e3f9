import assert from "node:assert/strict";
import { ISF_CHECKS_AT_ONCE, IsfCheckMemo } from "../../../player/isf/check_memo.ts";
import { IsfChecksBusy, IsfCheckStalled } from "../../../player/isf/apart.ts";
import { ISF_CHECK_BOUNDS, ISF_CHECKS_WAITING } from "../../../player/isf/bounds.ts";
import type { IsfKind, IsfResult } from "../../../player/isf/parse.ts";

/** A memo whose checks are counted and answer what the test says, when it says. */
function counted() {
  const runs: string[] = [];
  const pending: Array<(r: IsfResult) => void> = [];
  const memo = new IsfCheckMemo((code: string, kind: IsfKind) => {
    runs.push(`${kind}:${code}`);
    return new Promise<IsfResult>((resolve) => pending.push(resolve));
  });
  const answer = () => pending.shift()!({ ok: false, problems: [] } as unknown as IsfResult);
  return { memo, runs, answer };
}

Deno.test("IsfCheckMemo: the turn takes the check started for it, once; a later request checks again", async () => {
  const { memo, runs, answer } = counted();
  const done = memo.start("a", "effect");
  const taken = memo.take("a", "effect");
  answer();
  await done;
  assert.deepEqual(await taken, { ok: false, problems: [] });
  assert.equal(memo.size, 0, "taken: nothing kept");
  const again = memo.take("a", "effect");
  answer();
  await again;
  assert.deepEqual(runs, ["effect:a", "effect:a"], "no answer from an older request's check");
});

Deno.test("IsfCheckMemo: two starts of the same code share one check and are taken once each", async () => {
  const { memo, runs, answer } = counted();
  void memo.start("a", "effect");
  void memo.start("a", "effect");
  void memo.start("a", "visualizer");
  const [first, second] = [memo.take("a", "effect"), memo.take("a", "effect")];
  answer();
  answer();
  const [r1, r2] = await Promise.all([first, second]);
  assert.notEqual(r1, r2, "each caller its own copy");
  assert.deepEqual(runs, ["effect:a", "visualizer:a"]);
  assert.equal(memo.size, 1, "the visualizer's check waits for its turn");
});

Deno.test("IsfCheckMemo: checks never taken (their edit refused first) are dropped past 16, oldest first", () => {
  const { memo } = counted();
  for (let i = 0; i < 20; i++) void memo.start(`code ${i}`, "effect");
  assert.equal(memo.size, 16);
});

Deno.test("IsfCheckMemo runs at most ISF_CHECKS_AT_ONCE checks at once, the others in the order asked", async () => {
  const { memo, runs, answer } = counted();
  const flush = async () => {
    for (let i = 0; i < 10; i++) await Promise.resolve();
  };
  const taken = ["a", "b", "c", "d"].map((code) => memo.take(code, "effect"));
  await flush();
  assert.equal(ISF_CHECKS_AT_ONCE, 2);
  assert.deepEqual(runs, ["effect:a", "effect:b"]);
  answer();
  await taken[0];
  await flush();
  assert.deepEqual(runs, ["effect:a", "effect:b", "effect:c"], "a's place went to c");
  answer();
  await taken[1];
  await flush();
  assert.deepEqual(runs, ["effect:a", "effect:b", "effect:c", "effect:d"]);
  answer();
  answer();
  await Promise.all(taken);
});

Deno.test("IsfCheckMemo refuses a check at once, retryable, when ISF_CHECKS_WAITING already wait", async () => {
  const { memo, runs, answer } = counted();
  const flush = async () => {
    for (let i = 0; i < 10; i++) await Promise.resolve();
  };
  const queued = ISF_CHECKS_AT_ONCE + ISF_CHECKS_WAITING;
  const taken = Array.from({ length: queued }, (_, i) => memo.take(`code ${i}`, "effect"));
  const refused = await memo.take("one too many", "effect").then(() => null, (e) => e);
  assert.ok(refused instanceof IsfChecksBusy, String(refused));
  assert.ok(refused instanceof IsfCheckStalled, "answered as the retryable UNAVAILABLE");
  assert.equal(refused.code, "CHECKS_BUSY");
  assert.match(
    refused.message,
    new RegExp(`${ISF_CHECKS_WAITING} checks .*ISF_CHECKS_WAITING.*send it again`),
  );
  // The output's own check is not refused by a flood of edits': it waits its turn.
  const drawn = memo.checked("drawn", "visualizer");
  await flush();
  assert.deepEqual(runs.length, ISF_CHECKS_AT_ONCE);
  for (let i = 0; i <= queued; i++) answer(), await flush();
  await Promise.all([...taken, drawn]);
  assert.equal(runs.at(-1), "visualizer:drawn");
  // Once the queue has room again, a check is taken.
  const later = memo.take("later", "effect");
  answer();
  assert.deepEqual(await later, { ok: false, problems: [] });
});

Deno.test("IsfCheckMemo refuses code over codeCharacters without a check nor a place in the queue", async () => {
  const { memo, runs } = counted();
  const result = await memo.take("x".repeat(ISF_CHECK_BOUNDS.codeCharacters + 1), "effect");
  assert.equal(result.ok, false);
  assert.match(JSON.stringify(result), /over 65536 characters/);
  assert.deepEqual(runs, []);
});

Deno.test("IsfCheckMemo refuses a vertexCode over codeCharacters at once too, naming the field", async () => {
  const { memo, runs } = counted();
  const vertexCode = "x".repeat(ISF_CHECK_BOUNDS.codeCharacters + 1);
  void memo.start("short", "effect", { vertexCode });
  const result = await memo.take("short", "effect", { vertexCode });
  assert.equal(result.ok, false);
  assert.match(JSON.stringify(result), /over 65536 characters/);
  assert.equal(!result.ok && result.problems[0]?.field, "vertexCode");
  assert.deepEqual(runs, [], "no check run, no place in the queue");
});
