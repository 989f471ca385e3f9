import assert from "node:assert/strict";
import { IngressBudget, KeyedBuckets } from "../../../server/discovery/budget.ts";

Deno.test("KeyedBuckets: a burst, then the rate; each key its own bucket; the oldest key evicted", () => {
  const buckets = new KeyedBuckets(5, 10, 2);
  const taken = (key: string, now: number, n: number) =>
    Array.from({ length: n }, () => buckets.take(key, now)).filter(Boolean).length;
  assert.equal(taken("a", 0, 20), 10, "the burst");
  assert.equal(taken("a", 1000, 20), 5, "a second refills five");
  assert.equal(taken("b", 1000, 3), 3, "another key is not touched");
  assert.equal(taken("c", 1000, 1), 1);
  assert.equal(taken("a", 1000, 20), 10, "a was evicted (two keys kept): a new full bucket");
});

Deno.test("IngressBudget admits 100 packets of one source, then 50 a second, and counts the rest", () => {
  const budget = new IngressBudget();
  let admitted = 0;
  for (let i = 0; i < 1000; i++) if (budget.admit("10.0.0.9", 0)) admitted++;
  assert.equal(admitted, 100);
  assert.equal(budget.dropped, 900);
  assert.ok(budget.admit("10.0.0.10", 0), "another source is admitted");
  for (let i = 0; i < 100; i++) budget.admit("10.0.0.9", 1000);
  assert.equal(budget.dropped, 900 + 50);
});
