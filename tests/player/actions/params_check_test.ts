import assert from "node:assert/strict";
import { ACTIONS, normalizedParamsSchema, PARAM_SCHEMAS } from "../../../protocol/actions.ts";
import { ActionRunParams, Method } from "../../../protocol/methods.ts";
import { hasValidParams, KIND_CHECKS } from "../../../player/actions/params_check.ts";
import { parseActionRun, parseParams } from "../../../player/rpc_params.ts";

/** Values of every JSON type and then some, near each kind's edges. */
const VALUES: unknown[] = [
  ...[
    "",
    "a",
    "A",
    "Z",
    "z",
    "AB",
    " A",
    "A ",
    "\u00e9",
    "clip:c1/opacity",
    "clip:c1/1x",
    "clip:/x",
  ],
  ...["forward", "backward", "reverse", "now", "next-trigger", "effect", "visualizer", "1"],
  ...["full", "0,0,0.4,1;right=0.25", "0.7,0,0.4,1"],
  ...[0, -0, 1, -1, 0.5, 1.5, 2, 127, 128, 1e300, 2 ** 53, 2 ** 53 + 2, NaN, Infinity, -Infinity],
  ...[true, false, null, undefined, [], {}, ["A"], { a: 1 }, new Date(0)],
];

Deno.test("each kind's compiled check gives the verdict of its zod schema on every value", () => {
  for (const [kind, schema] of Object.entries(PARAM_SCHEMAS)) {
    const check = KIND_CHECKS[kind as keyof typeof KIND_CHECKS];
    for (const value of VALUES) {
      assert.equal(check(value), schema.safeParse(value).success, `${kind}: ${String(value)}`);
    }
  }
});

/** Params of `spec`: every one valid, each one missing, each one bad, one too many, not an object. */
function paramsOf(spec: (typeof ACTIONS)[number]): unknown[] {
  const good = (kind: keyof typeof KIND_CHECKS) => VALUES.find((v) => KIND_CHECKS[kind](v));
  const valid = Object.fromEntries(spec.params.map((p) => [p.name, good(p.kind)]));
  const out: unknown[] = [valid, { ...valid, extra: 1 }, null, [], "x", new Map()];
  for (const p of spec.params) {
    const { [p.name]: _, ...without } = valid;
    out.push(without);
    for (const value of VALUES) out.push({ ...valid, [p.name]: value });
  }
  return out;
}

Deno.test("each action's compiled check accepts what its zod schema accepts, and only that", () => {
  for (const spec of ACTIONS) {
    const schema = normalizedParamsSchema(spec.name);
    for (const params of paramsOf(spec)) {
      const label = `${spec.name} ${JSON.stringify(params)}`;
      const accepted = schema.safeParse(params).success;
      if (params instanceof Map) {
        // Not JSON's: zod takes any object; the check leaves it to zod (a parse, same verdict).
        assert.equal(hasValidParams(spec.name, params), false, label);
      } else assert.equal(hasValidParams(spec.name, params), accepted, label);
    }
  }
  assert.equal(hasValidParams("NO_SUCH_ACTION", {}), false);
});

Deno.test("action.run's door check answers what ActionRunParams answers", () => {
  const base = { name: "SET_CONTROL", params: { controlID: "A", value: 0.5 } };
  const envelopes: unknown[] = [null, [], "x", 1, {}, base, { ...base, extra: true }];
  for (const value of VALUES) {
    for (const field of ["name", "params", "projectId", "velocity", "idempotencyKey"]) {
      envelopes.push({ ...base, [field]: value });
    }
  }
  envelopes.push({ ...base, idempotencyKey: "k".repeat(512) }, {
    ...base,
    idempotencyKey: "k".repeat(513),
  });
  for (const envelope of envelopes) {
    const label = JSON.stringify(envelope);
    const expected = ActionRunParams.safeParse(envelope);
    if (expected.success) {
      // What crosses to the handler: zod leaves absent optional fields as undefined keys.
      const defined = Object.entries(expected.data).filter(([, v]) => v !== undefined);
      assert.deepEqual(parseActionRun(envelope), Object.fromEntries(defined), label);
    } else {
      assert.throws(() => parseActionRun(envelope), (error: Error) => {
        assert.throws(() => parseParams(Method.ACTION_RUN, envelope), { message: error.message });
        return true;
      }, label);
    }
  }
});
