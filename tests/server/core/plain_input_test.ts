import assert from "node:assert/strict";
import { z } from "zod";
import { OPERATIONS } from "../../../server/core/operations/mod.ts";
import { parseInput } from "../../../server/core/operations/operation.ts";
import { plainInputCheck } from "../../../server/core/operations/plain_input.ts";

const Plain = z.strictObject({
  projectId: z.string().min(1).optional(),
  name: z.string().max(4),
});

Deno.test("plainInputCheck() says yes to a plain input its schema takes as it is", () => {
  const check = plainInputCheck(Plain);
  for (const raw of [{ name: "a" }, { name: "", projectId: "demo" }, { name: "abcd" }]) {
    assert.equal(check(raw), true, JSON.stringify(raw));
    assert.deepEqual(Plain.parse(raw), raw);
  }
  assert.equal(plainInputCheck(z.strictObject({}))({}), true);
});

Deno.test("plainInputCheck() leaves to zod whatever it is not sure of", () => {
  const check = plainInputCheck(Plain);
  const unsure = [
    {}, // a required field missing
    { name: "abcde" }, // too long
    { name: "a", projectId: "" }, // too short
    { name: 1 },
    { name: "a", projectId: undefined },
    { name: "a", other: "b" }, // a key the schema refuses
    Object.assign(Object.create(null), { name: "a" }),
    null,
    "name",
    [],
  ];
  for (const raw of unsure) assert.equal(check(raw), false, String(JSON.stringify(raw)));
  // Schemas beyond strings and lengths are zod's alone, even for inputs they take.
  const beyond: Array<[z.ZodType, unknown]> = [
    [z.strictObject({ n: z.number() }), { n: 1 }],
    [z.strictObject({ s: z.string().trim() }), { s: "a" }],
    [z.strictObject({ s: z.string().regex(/^a$/) }), { s: "a" }],
    [z.strictObject({ s: z.coerce.string() }), { s: "a" }],
    [z.object({ s: z.string() }).catchall(z.string()), { s: "a" }],
    [z.strictObject({ s: z.string().default("a") }), { s: "a" }],
    [z.string(), "a"],
  ];
  for (const [schema, raw] of beyond) {
    assert.ok(schema.safeParse(raw).success);
    assert.equal(plainInputCheck(schema)(raw), false, JSON.stringify(raw));
  }
});

Deno.test("every operation's input: the plain check's yes is zod's yes, with the same fields", () => {
  const samples: unknown[] = [
    {},
    { projectId: "demo" },
    { projectId: "" },
    { projectId: 3 },
    { projectId: "demo", all: "true" },
    { id: "x" },
    { clipId: "c", projectId: "demo" },
  ];
  let passed = 0;
  for (const operation of OPERATIONS) {
    for (const raw of samples) {
      if (!plainInputCheck(operation.input)(raw)) continue;
      passed++;
      const parsed = operation.input.safeParse(raw);
      assert.ok(parsed.success, `${operation.name} ${JSON.stringify(raw)}`);
      assert.deepEqual(parsed.data, raw, operation.name);
    }
  }
  assert.ok(passed > 0);
  // The polled reads take the fast path (it is there for them).
  const byName = new Map(OPERATIONS.map((o) => [o.name, o]));
  assert.equal(plainInputCheck(byName.get("project")!.input)({ projectId: "demo" }), true);
  assert.equal(plainInputCheck(byName.get("appState")!.input)({}), true);
});

Deno.test("parseInput() still words zod's refusal of what the plain check leaves", () => {
  const plain = { name: "ab" };
  assert.equal(parseInput(Plain, plain), plain, "a plain input passes as it came (no zod walk)");
  assert.throws(
    () => parseInput(Plain, { name: "ab", projectId: "" }),
    (error: Error & { code?: string }) =>
      error.code === "INVALID_MESSAGE" && /projectId/.test(error.message),
  );
});
