import assert from "node:assert/strict";
import { MARKERS, toolRows } from "../../tools/mcp_doc.ts";

Deno.test("docs/mcp.md's tool table is the MCP tool table (deno task docs:mcp)", async () => {
  const doc = await Deno.readTextFile(new URL("../../docs/mcp.md", import.meta.url));
  const start = doc.indexOf(MARKERS[0]);
  const end = doc.indexOf(MARKERS[1]);
  assert.ok(start >= 0 && end > start, "the markers are in docs/mcp.md");
  const rows = doc.slice(start, end).split("\n")
    .filter((line) => line.startsWith("|"))
    .slice(2) // the header and its rule
    .map((line) => line.slice(1, -1).split(" | ").map((cell) => cell.trim()));
  assert.deepEqual(rows, toolRows());
});
