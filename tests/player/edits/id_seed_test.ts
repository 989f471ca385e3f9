/**
 * `newId` under `withIdSeed`: the ids a batch of a rig group's log makes are
 * drawn from its seed, the same on every rig (docs/rigs.md), and random without one.
 */
import assert from "node:assert/strict";
import { newId, withIdSeed } from "../../../player/edits/draft.ts";

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
