import assert from "node:assert/strict";
import { ISF_CHECKS_AT_ONCE, IsfCheckMemo } from "../../../player/isf/check_memo.ts";
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
