import assert from "node:assert/strict";
import { MARKERS, nameRows } from "../../tools/compat_doc.ts";
import { ACTIONS } from "../../protocol/actions.ts";

Deno.test("docs/compat.md's name table is the catalog's (deno task docs:compat)", async () => {
  const doc = await Deno.readTextFile(new URL("../../docs/compat.md", import.meta.url));
  const start = doc.indexOf(MARKERS[0]);
  const end = doc.indexOf(MARKERS[1]);
  assert.ok(start >= 0 && end > start, "the markers are in docs/compat.md");
  const rows = doc.slice(start, end).split("\n")
    .filter((line) => line.startsWith("|"))
    .slice(2)
    .map((line) => line.slice(1, -1).split(" | ").map((cell) => cell.trim()));
  assert.deepEqual(rows, nameRows());
  assert.equal(rows.length, ACTIONS.length, "one row per catalog action");
});
