/**
 * The facts of the catalog every operation states (issue 32): which
 * transports carry it and since which interface version
 * (`server/core/operations/carriers.ts`), with nothing left to a list beside
 * it, and the two facts agreeing.
 */
import assert from "node:assert/strict";
import {
  type AnyOperation,
  OPERATIONS,
  TRANSPORTS,
  transportsOf,
} from "../../../server/core/operations/mod.ts";

/** The transports of the 5.0.0 interface's ports. */
const V5 = TRANSPORTS.filter((t) => t.endsWith("-5.0.0"));

/**
 * The operations whose version and transports disagree: one of 5.0.0 (no
 * `since`) that no 5.0.0 port carries, or one new in 6.0 that one does.
 */
function disagreements(operations: readonly AnyOperation[]): string[] {
  return operations.flatMap((o) => {
    const onV5 = transportsOf(o).some((t) => V5.includes(t));
    if (o.since === "6.0" && onV5) return [`${o.name}: since 6.0, yet a 5.0.0 port carries it`];
    if (o.since === undefined && !onV5) {
      return [`${o.name}: no 5.0.0 port carries it, so it is new in 6.0: say since: "6.0"`];
    }
    return [];
  });
}

Deno.test("catalog: every operation is carried by a transport, and only by transports that exist", () => {
  const carried = OPERATIONS.map((o) => [o.name, transportsOf(o)] as const);
  assert.deepEqual(carried.filter(([, ts]) => ts.length === 0).map(([n]) => n), [], "no carrier");
  const unknown = carried.flatMap(([n, ts]) =>
    ts.filter((t) => !TRANSPORTS.includes(t)).map((t) => `${n}: ${t}`)
  );
  assert.deepEqual(unknown, []);
});

Deno.test("catalog: since which version agrees with where it travels (a 5.0.0 operation on a 5.0.0 port, a 6.0 one on none)", () => {
  assert.ok(OPERATIONS.length > 40, "the catalog is read");
  assert.deepEqual(disagreements(OPERATIONS), []);
});

Deno.test("catalog: the check sees an operation whose facts disagree", () => {
  // guards against a rule that passes because it reads nothing
  const v5Info = OPERATIONS.find((o) => o.name === "v5Info")!;
  const info = OPERATIONS.find((o) => o.name === "info")!;
  assert.deepEqual(disagreements([v5Info, info]), []);
  assert.equal(disagreements([{ ...v5Info, transports: ["http"] }]).length, 1);
  assert.equal(disagreements([{ ...info, transports: ["http", "http-5.0.0"] }]).length, 1);
  const { since: _, ...without } = info;
  assert.equal(disagreements([without]).length, 1);
});
