import assert from "node:assert/strict";
import { ActionBody, checkActionBody } from "../../../server/core/action_rules.ts";
import { CueportError } from "../../../server/core/errors.ts";

/** Values of every JSON type and then some, near each field's edges. */
const VALUES: unknown[] = [
  ...["", "a", "PLAY_IN", "A", "1"],
  ...[0, -0, 1, 2, -1, 0.5, 127, 128, 2 ** 53 + 2, NaN, Infinity],
  ...[true, false, null, undefined, [], {}, ["A"], ["A", 0.5], [null], [[]], [{}], [NaN], { a: 1 }],
];

Deno.test("the action body's plain check gives ActionBody's verdict and value on every body", () => {
  const base = { name: "SET_CONTROL", params: ["A", 0.5] };
  const bodies: Record<string, unknown>[] = [{}, base, { ...base, extra: 1 }, {
    ...base,
    action: {},
  }];
  for (const value of VALUES) {
    for (const field of ["name", "params", "projectID", "base", "velocity"]) {
      bodies.push({ ...base, [field]: value });
    }
  }
  for (const body of bodies) {
    const label = JSON.stringify(body);
    const expected = ActionBody.safeParse(body);
    if (expected.success) {
      const defined = Object.entries(expected.data).filter(([, v]) => v !== undefined);
      const got = Object.entries(checkActionBody(body)).filter(([, v]) => v !== undefined);
      assert.deepEqual(Object.fromEntries(got), Object.fromEntries(defined), label);
    } else {
      assert.throws(
        () => checkActionBody(body),
        (e: unknown) => e instanceof CueportError && e.code === "INVALID_MESSAGE",
        label,
      );
    }
  }
});
