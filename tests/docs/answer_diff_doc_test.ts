/** How the doc tests compare a live answer with a documented one (tools/testing/doc_examples.ts). */
import assert from "node:assert/strict";
import { answerDiff, MintedIds } from "../../tools/testing/doc_examples.ts";

Deno.test("answerDiff: every value and every item is compared, with the path and both values", () => {
  assert.deepEqual(
    answerDiff({ songs: [{ title: "Opening" }] }, { songs: [{ title: "Opening" }] }),
    [],
  );
  assert.deepEqual(
    answerDiff({ songs: [{ title: "Opening" }] }, { songs: [{ title: "Overture" }] }),
    [
      '$.songs[0].title: "Opening" != documented "Overture"',
    ],
  );
  assert.deepEqual(answerDiff({ a: [1, 2] }, { a: [1, 3] }), ["$.a[1]: 2 != documented 3"]);
  assert.deepEqual(answerDiff({ a: [1, 2] }, { a: [1] }), ["$.a: 2 items, documented 1"]);
  assert.deepEqual(answerDiff({ a: null }, { a: 1 }), ["$.a: null != documented 1"]);
  assert.deepEqual(answerDiff({ a: 1, b: 2 }, { a: 1 }), ["$: keys a,b != documented a"]);
});

Deno.test('answerDiff: an array ending in "..." shows the first items of a longer one', () => {
  assert.deepEqual(answerDiff([1, 2, 3], [1, "..."]), []);
  assert.deepEqual(answerDiff([2, 3], [1, "..."]), ["$[0]: 2 != documented 1"]);
  assert.deepEqual(answerDiff([1], [1, "..."]), ["$: 1 items, documented 1 and more"]);
});

Deno.test("answerDiff: '...' in a string elides text, the rest must match", () => {
  assert.deepEqual(answerDiff("/*{\n  A\n  B\n}*/\nmain", "/*{\n ... }*/\nmain"), []);
  assert.equal(answerDiff("/*{\n  A\n}*/\nother", "/*{\n ... }*/\nmain").length, 1);
});

Deno.test("answerDiff: the values that vary between runs are compared by kind only", () => {
  assert.deepEqual(answerDiff({ uptimeSeconds: 3 }, { uptimeSeconds: 39 }), []);
  assert.deepEqual(answerDiff({ ports: { ws: 40001 } }, { ports: { ws: 17734 } }), []);
  assert.deepEqual(answerDiff({ ports: { ws: null } }, { ports: { ws: 17734 } }), []);
  assert.deepEqual(answerDiff({ uptimeSeconds: "3" }, { uptimeSeconds: 39 }), [
    '$.uptimeSeconds: "3" != documented 39',
  ]);
});

Deno.test("answerDiff: a minted id stands for the live one it first meets, from then on both ways", () => {
  const ids = new MintedIds();
  const created = (id: string) => ({ message: `Song "${id}" added`, created: { songID: id } });
  assert.deepEqual(answerDiff(created("song-0a1771cc"), created("song-53831921"), ids), []);
  assert.equal(ids.toLive("song.delete song-53831921"), "song.delete song-0a1771cc");
  assert.deepEqual(answerDiff(["song-0a1771cc"], ["song-53831921"], ids), []);
  // Another live id for the same documented one, or the same live id for another documented one.
  assert.equal(answerDiff(["song-ffffffff"], ["song-53831921"], ids).length, 1);
  assert.equal(answerDiff(["song-0a1771cc"], ["song-b81d6705"], ids).length, 1);
  // Of another kind, or a word id, it is a plain value.
  assert.equal(answerDiff(["clip-0a1771cc"], ["song-53831921"], ids).length, 1);
  assert.equal(answerDiff(["song-opening"], ["song-53831921"], ids).length, 1);
});
