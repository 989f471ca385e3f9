import assert from "node:assert/strict";
import { MARKERS, SETTINGS_DOC, settingsRows } from "../../tools/settings_doc.ts";

Deno.test("docs/settings.md's table is the settings table (deno task docs:settings)", async () => {
  const readme = await Deno.readTextFile(new URL(`../../${SETTINGS_DOC}`, import.meta.url));
  const start = readme.indexOf(MARKERS[0]);
  const end = readme.indexOf(MARKERS[1]);
  assert.ok(start >= 0 && end > start, `the markers are in ${SETTINGS_DOC}`);
  const rows = readme.slice(start, end).split("\n")
    .filter((line) => line.startsWith("|"))
    .slice(2) // the header and its rule
    .map((line) => line.slice(1, -1).split(" | ").map((cell) => cell.trim()));
  assert.deepEqual(rows, settingsRows());
});
