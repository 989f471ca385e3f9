/**
 * `newId` under `withIdSeed`: the ids a batch of a rig group's log makes are
 * drawn from its seed, the same on every rig (docs/rigs.md), and random without one.
 */
import assert from "node:assert/strict";
import { IdMaker, newId, withIdSeed } from "../../../player/edits/draft.ts";

Deno.test("newId: the same seed makes the same ids, skipping taken ones; none without a seed", async () => {
  const make = (taken: Set<string>) =>
    withIdSeed("r42", () =>
      Promise.resolve([
        newId("clip", (id) => taken.has(id)),
        newId("clip", (id) => taken.has(id)),
        newId("song", () => false),
      ]));
  const first = await make(new Set());
  assert.deepEqual(await make(new Set()), first);
  assert.match(first[0]!, /^clip-[0-9a-f]{8}$/);
  assert.notEqual(first[0], first[1]);
  // A taken id is skipped as with random ones, the same way on every rig.
  const skipping = await make(new Set([first[0]!]));
  assert.deepEqual(skipping.slice(0, 1), [first[1]]);
  assert.notDeepEqual(
    await withIdSeed("r43", () => Promise.resolve(newId("clip", () => false))),
    first[0],
  );
  // Outside a seed (also after one): random.
  assert.notEqual(newId("clip", () => false), newId("clip", () => false));
});

Deno.test("newId: work beside a seeded batch draws at random, not the batch's seed numbers", async () => {
  const first = await withIdSeed("r42", () => Promise.resolve(newId("file", () => false)));
  const gate = Promise.withResolvers<void>();
  const batch = withIdSeed("r42", async () => {
    await gate.promise;
    return newId("file", () => false);
  });
  const beside = newId("file", () => false); // an import's copy, while the batch awaits
  gate.resolve();
  assert.equal(await batch, first, "the batch keeps its seed numbers");
  assert.notEqual(beside, first);
  assert.deepEqual(
    [new IdMaker("r42").next("file", () => false), new IdMaker().next("file", () => false)]
      .map((id) => id === first),
    [true, false],
  );
});
