import assert from "node:assert/strict";
import { CueportError } from "../../../server/core/errors.ts";
import { IdempotencyStore } from "../../../server/core/idempotency.ts";

Deno.test("IdempotencyStore runs a key once per client; a retry gets the first outcome, even while it runs", async () => {
  const store = new IdempotencyStore({ windowMs: 1000, maxKeys: 10 }, () => 0);
  let runs = 0;
  const slow = Promise.withResolvers<string>();
  const first = store.run("phone", "k1", "a", () => (runs++, slow.promise));
  const second = store.run("phone", "k1", "a", () => (runs++, Promise.resolve("again")));
  slow.resolve("done");
  assert.deepEqual(await Promise.all([first, second]), ["done", "done"]);
  assert.equal(await store.run("desk", "k1", "a", () => (runs++, Promise.resolve("desk"))), "desk");
  assert.equal(runs, 2, "keys are per client");
  await assert.rejects(
    store.run("phone", "k1", "b", () => Promise.resolve("other")),
    (e: CueportError) => e.code === "IDEMPOTENCY_KEY_REUSED",
  );
});

Deno.test("IdempotencyStore keeps refusals, forgets unknown outcomes, expires and bounds keys", async () => {
  let now = 0;
  const store = new IdempotencyStore({ windowMs: 1000, maxKeys: 3 }, () => now);
  let runs = 0;
  const refuse = () => (runs++, Promise.reject(new CueportError("NOT_FOUND", "no such Song")));
  await assert.rejects(store.run("c", "refused", "x", refuse));
  await assert.rejects(store.run("c", "refused", "x", refuse));
  assert.equal(runs, 1, "a refusal is an outcome: not run again");
  const down = () => (runs++, Promise.reject(new CueportError("NOT_READY", "player down")));
  await assert.rejects(store.run("c", "unknown", "x", down));
  await assert.rejects(store.run("c", "unknown", "x", down));
  assert.equal(runs, 3, "an unknown outcome is retried");
  now = 2000;
  const ok = () => (runs++, Promise.resolve(1));
  await store.run("c", "refused", "x", ok);
  assert.equal(runs, 4, "after the window the key is new");
  for (const k of ["a", "b", "c", "d"]) await store.run("c", k, "x", ok);
  assert.equal(store.size, 3);
});

Deno.test("IdempotencyStore forgets an answer that is no outcome: UNAVAILABLE (a shader check that made no progress) is sent again", async () => {
  const store = new IdempotencyStore();
  let runs = 0;
  const stalled = () => (runs++,
    Promise.reject(
      new CueportError("UNAVAILABLE", "The code could not be checked: send it again", {
        reason: "CHECK_STALLED",
      }),
    ));
  await assert.rejects(store.run("c", "k", "x", stalled));
  assert.equal(await store.run("c", "k", "x", () => (runs++, Promise.resolve("valid"))), "valid");
  assert.equal(runs, 2, "the retry ran: nothing was applied the first time");
});

Deno.test("IdempotencyStore: a rig group's refusal and unknown commit are no outcome: the retry runs", async () => {
  const store = new IdempotencyStore();
  for (const code of ["GROUP_NO_QUORUM", "GROUP_OUTCOME_UNKNOWN"] as const) {
    let runs = 0;
    const failed = () => (runs++, Promise.reject(new CueportError(code, "not known in")));
    await assert.rejects(store.run("c", code, "x", failed));
    assert.equal(await store.run("c", code, "x", () => (runs++, Promise.resolve("in"))), "in");
    assert.equal(runs, 2, `${code}: the retry ran`);
  }
});
