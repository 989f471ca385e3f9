import assert from "node:assert/strict";
import { ACTIONS } from "../../../protocol/actions.ts";
import { compiledNormalize } from "../../../server/core/action_compiled.ts";
import { checkActionBody, normalizeWalk } from "../../../server/core/action_rules.ts";

/** Param values near every kind's edges: letters, ids, numbers, words, padded and odd forms. */
const VALUES: unknown[] = [
  ...["A", "a", "z", "Z", "@", "[", "`", "{", "AB", " a", "b ", "", " ", "\u00a0x", "x\u00a0"],
  ...["c1", " c1 ", "42", "0.5", "-1", "1e21", "true", "off", "forward", "reverse", "now"],
  ...["clip:c1/opacity", " clip:c1/opacity", "clip:c1/", "effect", "1:2", "bars 1-4"],
  ...[0, -0, 1, 2, -1, 0.5, 1.5, -0.25, 127, 2 ** 53 - 1, 2 ** 53 + 2, 1e21, 1e-7],
  ...[true, false, null],
];
const BASES = [undefined, 0, 1];
const VELOCITIES = [undefined, null, 0, 64];
const PROJECTS = [undefined, null, "demo"];

/** A seeded generator (mulberry32): the same bodies every run. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(values: readonly T[], next: () => number): T {
  return values[Math.floor(next() * values.length)]!;
}

/** A body for `name`: 0 to one more than its params, each a value of `VALUES`. */
function bodyFor(name: string, arity: number, next: () => number): Record<string, unknown> {
  const params = Array.from({ length: Math.floor(next() * (arity + 2)) }, () => pick(VALUES, next));
  const body: Record<string, unknown> = { name, params };
  for (
    const [field, values] of [["base", BASES], ["velocity", VELOCITIES], ["projectID", PROJECTS]]
  ) {
    const value = pick(values as unknown[], next);
    if (value !== undefined) body[field as string] = value;
  }
  return body;
}

Deno.test("the compiled rules answer only what the generic walk answers, on every action", () => {
  const next = random(42);
  let answered = 0;
  for (const spec of ACTIONS) {
    for (let n = 0; n < 3000; n++) {
      const body = bodyFor(spec.name, spec.params.length, next);
      const label = JSON.stringify(body);
      let checked;
      try {
        checked = checkActionBody(body);
      } catch {
        continue; // refused before the rules: the compiled form never sees it
      }
      const fast = compiledNormalize(checked);
      if (fast === undefined) continue;
      answered++;
      assert.deepEqual(fast, normalizeWalk(checked), label); // the walk accepts it too, alike
    }
  }
  assert.ok(answered > 1000, `the compiled form answered ${answered} bodies`);
});

Deno.test("the compiled rules answer the common shapes themselves", () => {
  const common: [Record<string, unknown>, unknown][] = [
    [{ name: "SET_CONTROL", params: ["A", 0.5] }, { controlID: "A", value: 0.5 }],
    [{ name: "SET_CONTROL", params: ["b", -3] }, { controlID: "B", value: -3 }],
    [{ name: "PLAY_CLIP_BY_INDEX_IN", params: [1], base: 1, velocity: 90 }, { index: 0 }],
    [{ name: "SEEK_CLIP_IN", params: ["c1", 0.25] }, { clipID: "c1", percent: 0.25 }],
  ];
  for (const [body, params] of common) {
    const fast = compiledNormalize(checkActionBody(body));
    assert.ok(fast, JSON.stringify(body));
    assert.deepEqual(fast.params, params);
    assert.deepEqual(fast, normalizeWalk(checkActionBody(body)));
  }
});

Deno.test("the compiled rules leave every refusal to the walk", () => {
  for (
    const body of [
      { name: "NO_SUCH_ACTION" },
      { name: "SET_CONTROL", params: ["AB", 0.5] },
      { name: "SET_CONTROL", params: ["A"] },
      { name: "SET_CONTROL", params: ["A", 0.5, 1] },
      { name: "PLAY_CLIP_BY_INDEX_IN", params: [0], base: 1 },
      { name: "PROJECT_SELECT", params: ["demo"], projectID: "demo" },
    ]
  ) {
    assert.equal(compiledNormalize(checkActionBody(body)), undefined, JSON.stringify(body));
  }
});
